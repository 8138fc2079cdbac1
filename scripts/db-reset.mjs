// npm run db:reset: empties the local databases of `npm start` (deletes their D1 files under
// .wrangler/state) and applies the migrations again to each (the directory and every shard). Stop `npm start` first.
import { rmSync } from "node:fs";
import { applyLocalMigrations, assertNode22 } from "./wrangler.mjs";

assertNode22();
rmSync(".wrangler/state/v3/d1", { recursive: true, force: true });
console.log("Local databases emptied.");
console.log(await applyLocalMigrations());
