import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Two projects: pure domain modules run in Node (fast, no runtime needed);
// everything that touches the Worker runs inside workerd against a real local D1
// with the project's own migrations applied (see test/integration/setup.ts).
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
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              // The source itself, not the deploy build of dist/ that wrangler.toml names.
              main: "./src/index.ts",
              miniflare: {
                // The lagging replica of test/integration/replication (a test double's second database).
                d1Databases: { REPLICA_DB: "replica-test-double" },
                bindings: {
                  TEST_MIGRATIONS: migrations,
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
                },
              },
            }),
          ],
          test: {
            name: "integration",
            include: ["test/integration/**/*.test.ts"],
            setupFiles: ["./test/integration/setup.ts"],
            // Real PostgreSQL and HTTP servers for the connector tests, and the webhook receiver (inject("connectorServers")).
            globalSetup: ["./test/global-setup/connector-servers.mjs"],
          },
        },
      ],
    },
  };
});
