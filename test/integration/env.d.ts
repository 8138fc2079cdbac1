import type { D1Migration } from "@cloudflare/vitest-plugin";
import type { Bindings } from "../../src/lib/types";

declare global {
  namespace Cloudflare {
    interface Env extends Bindings {
      TEST_MIGRATIONS: D1Migration[];
      /** The replica of the lagging-D1 test double (test/integration/replication). */
      REPLICA_DB: D1Database;
    }
    // Types `exports.default` (the Worker's own fetch handler) in the tests.
    interface GlobalProps {
      mainModule: typeof import("../../src/index");
    }
  }
}
