// Applies drizzle/*.sql to the D1 databases of the directory and of every shard that wrangler.toml
// names (DIRECTORY, SHARDS; docs/sharding.md), each once. `--remote`: npm run deploy's first step,
// so a shard added to SHARDS has every migration before the Worker that places accounts on it is
// deployed; `--local`: npm run db:migrate:local (npm start does the same by itself).
import { applyLocalMigrations, assertNode22, configuredDatabases, runWrangler } from "./wrangler.mjs";

assertNode22();
if (process.argv.includes("--remote")) {
  for (const binding of configuredDatabases()) {
    console.log(`Migrating ${binding} (remote)`);
    await runWrangler(["d1", "migrations", "apply", binding, "--remote"]);
  }
} else console.log(await applyLocalMigrations());
