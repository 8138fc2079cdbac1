import { applyD1Migrations, env } from "cloudflare:test";
import { loadAllMounts } from "../../src/routes";

// Storage is isolated per test file: every file starts from the real migrations on empty databases
// (the directory and every shard: vitest.config.ts).
for (const binding of env.TEST_DATABASES) await applyD1Migrations(env[binding] as D1Database, env.TEST_MIGRATIONS);

// The Worker loads a route group's modules on its first request under that group (src/routes). Here
// the test runner fetches each module from Vite, which can take seconds on a busy machine: load them
// all before the tests, so that the first request of a test is not the one that pays for it.
await loadAllMounts();
