import type { D1Migration } from "@cloudflare/vitest-plugin";
import type { Bindings } from "../../src/lib/types";

declare global {
  namespace Cloudflare {
    interface Env extends Bindings {
      TEST_MIGRATIONS: D1Migration[];
      /** The bindings of every D1 database the project configures (one, or the directory and the shards). */
      TEST_DATABASES: ("DB" | "SHARD_2")[];
      /** The second shard of the integration-shards project. */
      SHARD_2: D1Database;
      /** The replicas of the lagging-D1 test doubles (test/integration/replication): DB's, and SHARD_2's in integration-shards. */
      REPLICA_DB: D1Database;
      REPLICA_SHARD_2: D1Database;
    }
    // Types `exports.default` (the Worker's own fetch handler) in the tests.
    interface GlobalProps {
      mainModule: typeof import("../../src/index");
    }
  }
}
