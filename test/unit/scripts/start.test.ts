import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain JavaScript helper of the npm scripts, without types.
import { applyLocalMigrations, migrationReport } from "../../../scripts/wrangler.mjs";

/** `npm start` (scripts/start.mjs): what it says about the database and about a port in use. */
describe("npm start", () => {
  it("names the migrations it applied, or says that there were none", () => {
    const applied = [
      "Migrations to be applied:",
      "│ 0008_materialized_views.sql │ 🕒️    │",
      "│ 0009_bearer_guard.sql       │ 🕒️    │",
      "🚣 2 commands executed successfully.",
      "│ 0000_init.sql               │ ✅     │",
      "│ 0008_materialized_views.sql │ ✅     │",
      "│ 0009_bearer_guard.sql       │ ✅     │",
    ].join("\n");
    // The whole table comes back; the ones marked applied that were pending are named, each once.
    expect(migrationReport(applied)).toBe("Local database DB migrated: applied 0000_init.sql, 0008_materialized_views.sql, 0009_bearer_guard.sql.");
    expect(migrationReport("Resource location: local\n\n✅ No migrations to apply!")).toBe("Local database DB up to date: no migration to apply.");
  });

  it("really applies them to a local D1: every migration the first time, none the second", async () => {
    const state = mkdtempSync(path.join(tmpdir(), "start-migrations-"));
    try {
      const migrations = readdirSync("drizzle").filter((name) => name.endsWith(".sql")).sort();
      expect(await applyLocalMigrations(state)).toBe(`Local database DB migrated: applied ${migrations.join(", ")}.`);
      expect(await applyLocalMigrations(state)).toBe("Local database DB up to date: no migration to apply.");
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
    // wrangler starts a local runtime twice: seconds on an idle machine, minutes on a busy one.
  }, 300_000);

  it("stops at once, non-zero, saying the port is taken, when something listens on it", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen({ host: "127.0.0.1", port: 0 }, resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const child = spawn(process.execPath, ["scripts/start.mjs"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
      const [code] = await once(child, "exit");
      expect(code).toBe(1);
      expect(output).toContain(`Port ${port} is taken`);
      expect(output).not.toContain("Ready");
    } finally {
      taken.close();
    }
  }, 60_000);
});
