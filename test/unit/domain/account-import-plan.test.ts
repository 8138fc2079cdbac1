import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applied, planImport, type PlannedBundle } from "../../../src/domain/transfer/account-import-plan";

const empty: PlannedBundle = { groups: [], connections: [], calendars: [], sources: [], jsonDatasets: [], folders: [], materializedViews: [] };
const context = { prune: false, targetUsers: new Set<string>(), importer: undefined };

const name = fc.string({ minLength: 1, maxLength: 6 });
const bundle = fc.record({
  groups: fc.uniqueArray(fc.record({ name, privileges: fc.subarray(["ROLE_A", "ROLE_B"]), builtIn: fc.constant(false) }), { selector: (g) => g.name, maxLength: 5 }),
  calendars: fc.uniqueArray(fc.record({ name, type: fc.constant("MONTH_SHIFT"), monthShift: fc.integer({ min: 1, max: 11 }) }), { selector: (c) => c.name, maxLength: 5 }),
  jsonDatasets: fc.uniqueArray(fc.record({ name, data: fc.jsonValue() }), { selector: (d) => d.name, maxLength: 5 }),
});
const full = (b: Partial<PlannedBundle>): PlannedBundle => ({ ...empty, ...b });

describe("planImport", () => {
  it("a bundle planned against itself is UNCHANGED throughout (idempotency)", () => {
    fc.assert(fc.property(bundle, (b) => planImport(full(b), full(b), context).every((e) => e.status === "UNCHANGED")));
  });

  it("into an empty target, every object is CAN_BE_CREATED, once", () => {
    fc.assert(
      fc.property(bundle, (b) => {
        const plan = planImport(full(b), empty, context);
        return plan.length === b.groups.length + b.calendars.length + b.jsonDatasets.length && plan.every((e) => e.status === "CAN_BE_CREATED");
      }),
    );
  });

  it("with prune, what the target holds and the bundle lacks is CAN_BE_DELETED; without, it is not in the plan", () => {
    fc.assert(
      fc.property(bundle, bundle, (wanted, current) => {
        const names = new Set(wanted.groups.map((g) => g.name));
        const extra = current.groups.filter((g) => !names.has(g.name)).length;
        const deleted = planImport(full(wanted), full(current), { ...context, prune: true }).filter((e) => e.type === "group" && e.status === "CAN_BE_DELETED");
        const kept = planImport(full(wanted), full(current), context).filter((e) => e.status === "CAN_BE_DELETED");
        return deleted.length === extra && kept.length === 0;
      }),
    );
  });

  it("an update names the members that change, before and after; applied statuses drop CAN_BE_", () => {
    const plan = planImport(full({ groups: [{ name: "A", privileges: ["ROLE_B"], builtIn: false }] }), full({ groups: [{ name: "A", privileges: ["ROLE_A"], builtIn: false }] }), context);
    expect(plan).toEqual([{ type: "group", name: "A", status: "CAN_BE_UPDATED", changes: [{ member: "privileges", before: ["ROLE_A"], after: ["ROLE_B"] }] }]);
    expect(applied(plan)[0]!.status).toBe("UPDATED");
  });

  it("a grant to a group neither side defines, or to a user the target lacks, is a CONFLICT; an owner maps to the importer", () => {
    const source = { name: "S", owner: "alice", fields: [], customMetrics: [], permissions: [{ principalType: "GROUP", principalName: "Ghosts", permission: "READ" }] };
    const [entry] = planImport(full({ sources: [source] }), empty, { ...context, importer: "bob" });
    expect(entry).toMatchObject({ status: "CONFLICT", conflicts: [expect.stringContaining("Ghosts")] });
    const user = { ...source, permissions: [{ principalType: "USER", principalName: "carol", permission: "READ" }] };
    expect(planImport(full({ sources: [user] }), empty, context)[0]).toMatchObject({ status: "CONFLICT", conflicts: [expect.stringContaining("carol")] });
    const owned = planImport(full({ sources: [{ ...source, permissions: [] }] }), full({ sources: [{ ...source, permissions: [], owner: "bob" }] }), { ...context, importer: "bob" });
    expect(owned[0]!.status).toBe("UNCHANGED");
  });

  it("a new connection with a secret parameter is a CONFLICT; creating past the SOURCE quota is one", () => {
    const connection = { name: "C", allParameters: [{ key: "password", systemAccess: false }] };
    expect(planImport(full({ connections: [connection] }), empty, context)[0]).toMatchObject({ status: "CONFLICT" });
    expect(planImport(full({ connections: [connection] }), full({ connections: [connection] }), context)[0]!.status).toBe("UNCHANGED");
    const sources = ["A", "B"].map((n) => ({ name: n, fields: [], customMetrics: [], permissions: [] }));
    const plan = planImport(full({ sources, quota: { quotas: [{ type: "SOURCE", limit: 1 }] } }), empty, context);
    expect(plan.filter((e) => e.type === "source").every((e) => e.status === "CONFLICT")).toBe(true);
  });

  it("a secret the bundle gives (opened from its sealed value) lets a new connection be created", () => {
    const connection = { name: "C", allParameters: [{ key: "password", systemAccess: false }] };
    const givenSecrets = new Map([["C", new Set(["password"])]]);
    expect(planImport(full({ connections: [connection] }), empty, { ...context, givenSecrets })[0]!.status).toBe("CAN_BE_CREATED");
  });

  const folder = (path: string[], extra: Record<string, unknown> = {}) => ({
    path,
    folderType: "CUSTOM",
    contentType: "DASHBOARDS",
    projectType: "LIBRARY_CUSTOM",
    visibility: "CUSTOM",
    inheritanceState: "INHERIT",
    owner: "bob",
    permissions: [],
    items: [],
    ...extra,
  });
  const withOwner = { ...context, targetUsers: new Set(["bob"]), importer: "bob" };

  it("a folder holds as the folder endpoints would: its parent there, within the depth limit, its items of its library, an owner", () => {
    const statusOf = (folders: object[], ctx: object = withOwner) => planImport(full({ folders: folders as never }), empty, ctx as never).map((e) => e.status);
    expect(statusOf([folder(["A"]), folder(["A", "B"])])).toEqual(["CAN_BE_CREATED", "CAN_BE_CREATED"]);
    expect(statusOf([folder(["A", "B"])])).toEqual(["CONFLICT"]);
    expect(statusOf([folder(["A"]), folder(["A", "B"])], { ...withOwner, maxFolderDepth: 0 })).toEqual(["CAN_BE_CREATED", "CONFLICT"]);
    expect(statusOf([folder(["A"], { items: [{ itemType: "REPORT", itemId: "r", name: "R" }] })])).toEqual(["CONFLICT"]);
    expect(statusOf([folder(["A"], { folderType: "PRIVATE" })])).toEqual(["CONFLICT"]);
    expect(statusOf([folder(["A"]), folder(["A", "B"], { projectType: "GLOBAL" })])).toEqual(["CAN_BE_CREATED", "CONFLICT"]);
    // The owner maps to a user of the target, or the importer; with neither, a folder cannot be made.
    expect(statusOf([folder(["A"], { owner: "alice" })])).toEqual(["CAN_BE_CREATED"]);
    expect(statusOf([folder(["A"], { owner: "alice" })], context)).toEqual(["CONFLICT"]);
    expect(statusOf([folder(["A"], { owner: undefined })])).toEqual(["CAN_BE_CREATED"]);
  });

  it("with prune, an object still used by what the account keeps is a CONFLICT, not a deletion", () => {
    const connection = { name: "C", allParameters: [] };
    const source = { name: "S", connection: "C", fields: [], customMetrics: [], permissions: [] };
    const view = { name: "V", source: "S", definition: {}, storageSettings: { targetStorage: { connectionName: "C" } } };
    const current = full({ connections: [connection], sources: [source], materializedViews: [view], folders: [folder(["A"])] });
    const plan = planImport(full({ sources: [source], materializedViews: [view] }), current, { ...withOwner, prune: true });
    expect(plan.find((e) => e.type === "connection")).toMatchObject({ status: "CONFLICT", conflicts: [expect.stringContaining("source 'S', materialized view 'V'")] });
    expect(plan.find((e) => e.type === "folder")!.status).toBe("CAN_BE_DELETED");
    const withoutView = planImport(full({ connections: [connection] }), current, { ...withOwner, prune: true });
    expect(withoutView.filter((e) => e.status === "CONFLICT")).toEqual([]);
  });
});
