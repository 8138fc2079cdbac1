import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AccountBundleSchema } from "../../../src/routes/account-export/account-export.schemas";
import { planImport, type PlannedBundle } from "../../../src/domain/transfer/account-import-plan";

/** docs/export-import.md shows a complete account bundle: it must be one the import takes, every section filled. */
describe("the account bundle example of docs/export-import.md", () => {
  const page = readFileSync("docs/export-import.md", "utf8");
  const block = page.slice(page.indexOf("A complete example, every section filled")).match(/```json\n([\s\S]*?)```/)![1]!;
  const bundle = JSON.parse(block);

  it("is valid for the import's schema and fills every section", () => {
    const parsed = AccountBundleSchema.safeParse(bundle);
    expect(parsed.error?.issues ?? []).toEqual([]);
    for (const section of ["groups", "users", "connections", "calendars", "sources", "jsonDatasets", "folders", "materializedViews"]) expect(bundle[section].length, section).toBeGreaterThan(0);
    expect(bundle.quota.quotas.length).toBeGreaterThan(0);
  });

  it("planned into an account that holds it already, is UNCHANGED throughout, without a conflict", () => {
    const context = { prune: true, targetUsers: new Set(["alice"]), importer: "alice", givenSecrets: new Map([["Warehouse", new Set(["password"])]]) };
    const plan = planImport(bundle as PlannedBundle, bundle as PlannedBundle, context);
    expect(plan.filter((e) => e.status !== "UNCHANGED")).toEqual([]);
  });
});
