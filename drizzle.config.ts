import { defineConfig } from "drizzle-kit";

// drizzle-kit writes SQL migrations into drizzle/, which is also wrangler's migrations_dir.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema/index.ts",
  out: "./drizzle",
});
