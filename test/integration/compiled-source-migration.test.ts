import { describe, expect, it } from "vitest";
import { connectionBody, createConnection } from "./connection-helpers";
import { as, call, createAccount, createUser, unique } from "./helpers";
import { NATIVE_FIELDS, nativeField, putMetric } from "./metric-helpers";

// The sources export's reads and the import's reads of its target (src/routes/source-migration) are
// compiled once per isolate, their lists bound as JSON: interleaved exports and dry-run imports of
// several accounts each see their own sources, items and connections only.
describe("source export and import, read through statements compiled once per isolate", () => {
  it("exports and plans imports for each of several accounts with its own rows, interleaved", async () => {
    const worlds = await Promise.all(
      Array.from({ length: 3 }, async (_, i) => {
        const account = await createAccount(unique(`Migr${i}`));
        const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
        const connection = await createConnection(admin, connectionBody(unique(`Conn${i}`)));
        // Account i has i + 1 sources on its connection, each with a metric named after the account.
        const sources = [];
        for (let s = 0; s <= i; s++) {
          const fields = NATIVE_FIELDS.map((f) => nativeField(f.name, f.originalType));
          const made = await call("POST", "/api/sources", { as: as(admin), body: { name: unique("src"), connectionId: connection.id, fields } });
          expect(made.status, made.text).toBe(201);
          const source = made.json as { id: string };
          expect((await putMetric(admin, source.id, `metric_${i}`, { expression: "SUM(price)" })).status).toBe(201);
          sources.push(source);
        }
        return { account, admin, connection, sources };
      }),
    );
    const exports = await Promise.all(worlds.map((w) => call("GET", `/api/sources/export?ids=${w.sources.map((s) => s.id).join(",")}`, { as: as(w.admin) })));
    exports.forEach((res, i) => {
      expect(res.status, res.text).toBe(200);
      expect(res.json.sources.map((s: { definition: { id: string } }) => s.definition.id)).toEqual(worlds[i]!.sources.map((s) => s.id));
      for (const source of res.json.sources) expect(source.customMetrics.map((m: { name: string }) => m.name)).toContain(`metric_${i}`);
      expect(res.json.connections.map((c: { name: string }) => c.name)).toEqual([worlds[i]!.connection.name]);
    });
    // Each bundle planned (dry run) into its own account: every source is found there by name, in its own account.
    const plans = await Promise.all(worlds.map((w, i) => call("POST", "/api/sources/import?dryRun=true", { as: as(w.admin), body: exports[i]!.json })));
    plans.forEach((res, i) => {
      expect(res.status, res.text).toBe(200);
      expect(res.json.sources).toHaveLength(i + 1);
      // Its connection too is found by name (else, with no secret in the bundle, it could not be made).
      expect(res.json.connections.map((c: { status: string }) => c.status)).not.toContain("FAILED");
      for (const source of res.json.sources) expect(["FAILED", "CAN_BE_CREATED"]).not.toContain(source.status);
    });
    // Planned into the next account, the same bundle finds none of them (another account's source is not its own),
    // nor its connection: the bundle carries no secret, so the connection fails and the sources on it with it.
    const across = await Promise.all(worlds.map((w, i) => call("POST", "/api/sources/import?dryRun=true", { as: as(worlds[(i + 1) % 3]!.admin), body: exports[i]!.json })));
    across.forEach((res, i) => {
      expect(res.status, res.text).toBe(200);
      expect(res.json.connections.map((c: { status: string }) => c.status)).toEqual(["FAILED"]);
      expect(res.json.sources.map((s: { status: string }) => s.status)).toEqual(Array(i + 1).fill("FAILED"));
    });
    // And another account's source ids are not exportable.
    expect((await call("GET", `/api/sources/export?ids=${worlds[1]!.sources[0]!.id}`, { as: as(worlds[0]!.admin) })).status).toBe(404);
  });
});
