// npm run db:reset: empties the local database of `npm start` (deletes its D1 files under
// .wrangler/state) and applies the migrations again. Stop `npm start` first.
import { rmSync } from "node:fs";
import { assertNode22, runWranglerQuietly } from "./wrangler.mjs";

assertNode22();
rmSync(".wrangler/state/v3/d1", { recursive: true, force: true });
await runWranglerQuietly(["d1", "migrations", "apply", "DB", "--local"]);
console.log("Local database emptied and migrated.");
