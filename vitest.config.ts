import { cloudflareTest, readD1Migrations, type D1Migration } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Three projects: pure domain modules run in Node (fast, no runtime needed); everything that
// touches the Worker runs inside workerd against real local D1 databases with the project's own
// migrations applied (see test/integration/setup.ts), once on one database (the default) and once
// over a directory and two shards (docs/sharding.md).
export default defineConfig(async () => {
  const migrations = await readD1Migrations("./drizzle");
  return {
    test: {
      // The Worker logs a line per request (src/middleware/request-log): thousands per run, none of
      // them a test's outcome. request-log.test.ts reads them through its own console spies.
      onConsoleLog: (log: string) => !log.includes('"message":"request"'),
      projects: [
        {
          test: {
            name: "unit",
            include: ["test/unit/**/*.test.ts"],
            environment: "node",
          },
        },
        integrationProject("integration", migrations, { include: ["test/integration/**/*.test.ts"], exclude: ["test/integration/shards/**"] }),
        // DB is the directory and the first shard, SHARD_2 the second.
        // Every integration file runs in both configurations (docs/sharding.md, "Tests over two shards").
        integrationProject("integration-shards", migrations, { include: ["test/integration/**/*.test.ts"], shards: ["DB", "SHARD_2"] }),
      ],
    },
  };
});

const TEST_BINDINGS = {
  SUPERVISOR_USERNAME: "supervisor",
  SUPERVISOR_PASSWORD: "supervisor-test-password",
  EXPOSE_D1_ROUND_TRIPS: "true",
  PAGE_TOKEN_KEY: "integration-test-page-token-key",
  CORS_ALLOWED_ORIGINS: "https://console.example.test",
  // Connections: the test servers listen on the loopback address, which must be listed to be reached.
  CONNECTION_SECRETS_KEY: "integration-test-connection-secrets-key",
  CONNECTOR_ALLOWED_HOSTS: "127.0.0.1",
  CONNECTOR_CONNECT_TIMEOUT_MS: "3000",
  CONNECTOR_OPERATION_TIMEOUT_MS: "5000",
  // Webhooks (test/integration/webhooks.test.ts): a real local Queue delivers to the loopback receiver;
  // retries 1, 2, 4 s apart, four attempts, two FAILED deliveries disable; the sweep takes events at once.
  WEBHOOK_MAX_ATTEMPTS: "4",
  WEBHOOK_RETRY_BASE_SECONDS: "1",
  WEBHOOK_DISABLE_AFTER_FAILURES: "2",
  WEBHOOK_TIMEOUT_MS: "2000",
  WEBHOOK_SWEEP_GRACE_SECONDS: "0",
  // Conformance fuzz (test/integration/conformance-fuzz-*): `npm run fuzz` sets these; empty means 50 runs, fixed seed.
  FUZZ_RUNS: process.env.FUZZ_RUNS ?? "",
  FUZZ_SEED: process.env.FUZZ_SEED ?? "",
};

/**
 * A Workers project: the Worker's source (not the deploy build of dist/ that wrangler.toml names)
 * on real local D1 databases. `shards`: the bindings of SHARDS, the first also the directory; the
 * others are extra D1 databases. TEST_DATABASES lists every database setup.ts migrates.
 */
function integrationProject(name: string, migrations: D1Migration[], options: { include: string[]; exclude?: string[]; shards?: string[] }) {
  const shards = options.shards ?? ["DB"];
  const extra = shards.filter((binding) => binding !== "DB");
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        main: "./src/index.ts",
        miniflare: {
          // The extra shards, and the lagging replicas of test/integration/replication (each test double's second database: one per database).
          d1Databases: {
            REPLICA_DB: "replica-test-double",
            ...Object.fromEntries(extra.flatMap((binding) => [[binding, `${binding.toLowerCase()}-test`], [`REPLICA_${binding}`, `replica-${binding.toLowerCase()}-test-double`]])),
          },
          bindings: { ...TEST_BINDINGS, TEST_MIGRATIONS: migrations, TEST_DATABASES: ["DB", ...extra], DIRECTORY: "DB", SHARDS: shards.join(",") },
        },
      }),
    ],
    test: {
      name,
      include: options.include,
      exclude: options.exclude ?? [],
      setupFiles: ["./test/integration/setup.ts"],
      // Real PostgreSQL and HTTP servers for the connector tests, and the webhook receiver (inject("connectorServers")).
      globalSetup: ["./test/global-setup/connector-servers.mjs"],
    },
  };
}
