import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { refusedBy, refuseWhen, WRITE_CONFLICT_GUARD } from "../../db/batch-guards";
import { createDatasetStatements, newDataVersion, replaceDataStatements } from "../../db/json-datasets";
import { calendarLimitGuard } from "../../db/calendars";
import { scopeOf } from "../../db/scope";
import { insertItems, replaceReferences } from "../../db/source-items";
import { namesIn, parseExpression } from "../../domain/expression";
import { checkBundledItems, type BundledField, type BundledMetric } from "../../domain/source-bundle";
import { calendars, groups, jsonDatasets, quotaLimits, quotas, sourceItems, sourcePermissions, sources } from "../../db/schema";
import type { AuditChange, AuditRecord } from "../../domain/audit/event";
import { applied, hasConflicts, keyOf, planImport, type ImportObjectType, type MemberChange, type PlanEntry, type PlannedBundle } from "../../domain/transfer/account-import-plan";
import { ApiError, isConstraintError, notFound } from "../../lib/errors";
import { auditForCreate, auditForUpdate, newRevision } from "../../lib/http";
import type { AppRouteHandler } from "../../lib/create-router";
import { bundleOf, readAccountState, type AccountState } from "../account-export/account-state";
import type { Database } from "../../db/client";
import type { Principal } from "../../domain/principal";
import type * as routes from "./account-import.routes";

/** What this import writes so far; the plan marks creating or changing any other type a CONFLICT that says so. */
const UNSUPPORTED = new Set<ImportObjectType>(["connection", "folder", "materializedView"]);

type Obj = Record<string, unknown>;

/**
 * POST /api/accounts/{accountId}/import (docs/export-import.md): one read batch (the export's,
 * for the target's bundle, ids and revisions), the plan (a pure function), then, unless a dry run,
 * one write batch applying it: every object or none. Each existing row it changes or deletes is
 * guarded by the revision read, so a concurrent change fails the batch (409, nothing written).
 */
export const importAccount: AppRouteHandler<typeof routes.importAccount> = async (c) => {
  const { accountId } = c.req.valid("param");
  const { dryRun, prune } = c.req.valid("query");
  const wanted = c.req.valid("json") as unknown as PlannedBundle & { users: { name: string }[]; jsonDatasets: Obj[] };
  const principal = c.get("principal");
  const db = c.get("db");
  const state = await readAccountState(db, scopeOf(principal), accountId);
  if (!state) throw notFound("Account");

  const { bundle: currentBundle, raw } = bundleOf(state);
  // The target's datasets as values (their stored text parsed), to compare with the bundle's parsed data.
  const current = {
    ...currentBundle,
    jsonDatasets: currentBundle.jsonDatasets.map((d) => ({ ...d, data: JSON.parse(raw.get(d.data as object) ?? "null") })),
  } as unknown as PlannedBundle;
  const targetUsers = new Set(state.userRows.map((u) => u.name));
  const importer = principal.kind === "user" && targetUsers.has(principal.name) ? principal.name : undefined;
  let entries = planImport(wanted, current, { prune, targetUsers, importer, unsupported: UNSUPPORTED });
  entries = entries.map((e) => withWriteRules(e, principal, wanted, state));
  const users = wanted.users.map((u) => {
    const mappedTo = targetUsers.has(u.name) ? u.name : importer;
    return mappedTo === undefined ? { name: u.name } : { name: u.name, mappedTo };
  });

  if (dryRun) return c.json({ dryRun: true, entries, users }, 200);
  if (hasConflicts(entries)) {
    throw new ApiError("IMPORT_CONFLICT", "The bundle cannot be imported as it is: see each problem (a dry run answers the whole plan)", {
      problems: entries
        .filter((e) => e.status === "CONFLICT")
        .map((e) => ({ name: `${e.type} ${e.path ? JSON.stringify(e.path) : (e.name ?? "")}`.trim(), message: e.conflicts!.join("; "), level: "ERROR" as const })),
    });
  }
  const statements = new Writer(db, c.get("config").maxDatasetsPerAccount, principal, accountId, state, wanted).statements(entries, (r) => c.get("audit").record(r));
  if (statements.length > 0) {
    try {
      await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
    } catch (err) {
      // A FOREIGN KEY failure: a pruned object still in use (a calendar by a field, a source by a view).
      if (refusedBy(err, WRITE_CONFLICT_GUARD) || ["UNIQUE", "CHECK", "FOREIGN KEY"].some((kind) => isConstraintError(err, kind as "UNIQUE"))) {
        throw new ApiError("CONCURRENT_UPDATE", "The account changed while the import was written, or a limit refused it: nothing was written; plan again (dryRun=true) and retry");
      }
      throw err;
    }
  }
  return c.json({ dryRun: false, entries: applied(entries), users }, 200);
};

/**
 * Rules of this service rather than of the bundle: only the supervisor sets an account's quota
 * (PUT /api/quota is the supervisor's); a source's fields and metrics must hold together (each
 * derived field, hierarchy and metric checked against what it uses, no cycle), and a derived
 * field's calendar must be the bundle's or the account's.
 */
function withWriteRules(entry: PlanEntry, principal: Principal, wanted: PlannedBundle, state: AccountState): PlanEntry {
  const writes = entry.status === "CAN_BE_CREATED" || entry.status === "CAN_BE_UPDATED" || entry.status === "CAN_BE_DELETED";
  const conflict = (why: string): PlanEntry => ({ ...entry, status: "CONFLICT", conflicts: [...(entry.conflicts ?? []), why] });
  if (entry.type === "quota" && writes && principal.kind !== "supervisor") return conflict("Only the supervisor sets or removes an account's quota");
  if (entry.type === "source" && (entry.status === "CAN_BE_CREATED" || entry.status === "CAN_BE_UPDATED")) {
    const source = wanted.sources.find((s) => s.name === entry.name)!;
    // The fields and metrics as one set, as the field and metric endpoints would check them one by one.
    const { problems } = checkBundledItems(source.fields as unknown as BundledField[], source.customMetrics as unknown as BundledMetric[]);
    if (problems.length > 0) return conflict(`Its fields and custom metrics do not hold together: ${problems.map((p) => `${p.member}: ${p.message}`).join("; ")}`);
    const calendarsKnown = new Set([...state.calendarRows.map((r) => r.name), ...wanted.calendars.map((k) => String(k.name))]);
    const missing = (source.fields as Obj[]).map(calendarNameOf).filter((name): name is string => name !== undefined && !calendarsKnown.has(name));
    if (missing.length > 0) return conflict(`Derived fields name calendars neither the bundle nor the account has: ${[...new Set(missing)].map((n) => `'${n}'`).join(", ")}`);
  }
  return entry;
}

/** Large members (a dataset's data, a source's items) are only said to have changed: an event stays small. */
const auditChange = (ch: MemberChange): AuditChange =>
  ["data", "fields", "customMetrics"].includes(ch.member) ? { member: ch.member, changed: true } : { member: ch.member, before: ch.before ?? null, after: ch.after ?? null };

/** Turns a conflict-free plan into the statements of one batch and their audit events. */
class Writer {
  readonly #groupIds: Map<string, string>;
  readonly #userIds: Map<string, string>;
  /** Calendars by name: the account's, and those this import creates (written before the sources that use them). */
  readonly #calendarIds: Map<string, string>;
  readonly #out: BatchItem<"sqlite">[] = [];
  readonly #accountId: string;

  constructor(
    private readonly db: Database,
    private readonly maxDatasets: number,
    private readonly principal: Principal,
    accountId: string,
    private readonly state: AccountState,
    private readonly wanted: PlannedBundle & { jsonDatasets: Obj[] },
  ) {
    this.#accountId = accountId;
    this.#groupIds = new Map(state.groupRows.map((g) => [g.name, g.id]));
    this.#userIds = new Map(state.userRows.map((u) => [u.name, u.id]));
    this.#calendarIds = new Map(state.calendarRows.map((r) => [r.name, r.id]));
  }

  statements(entries: readonly PlanEntry[], record: (r: AuditRecord) => void): BatchItem<"sqlite">[] {
    for (const entry of entries) {
      if (entry.status === "UNCHANGED" || entry.status === "CONFLICT") continue;
      const object = this.#wantedOf(entry);
      const id = this.#write(entry, object);
      const action = `${entry.type === "jsonDataset" ? "json-dataset" : entry.type}.${entry.status === "CAN_BE_CREATED" ? "create" : entry.status === "CAN_BE_UPDATED" ? "update" : "delete"}`;
      const type = entry.type === "jsonDataset" ? "json-dataset" : entry.type;
      record({ accountId: this.#accountId, action: action as AuditRecord["action"], target: { type: type as AuditRecord["target"]["type"], id, name: entry.name ?? null }, changes: entry.changes?.map(auditChange) });
    }
    return this.#out;
  }

  #wantedOf(entry: PlanEntry): Obj | undefined {
    const section = { group: "groups", quota: "quota", calendar: "calendars", source: "sources", jsonDataset: "jsonDatasets" }[entry.type as string] as keyof PlannedBundle;
    const list = ([] as Obj[]).concat((this.wanted[section] as Obj | Obj[] | undefined) ?? []);
    return list.find((o) => keyOf(entry.type, o) === keyOf(entry.type, { name: entry.name, path: entry.path }));
  }

  /** A bundled field's body as stored: its calendar by id (the bundle names it). */
  #withCalendarId(body: Obj): Obj {
    const name = calendarNameOf(body);
    if (name === undefined) return body;
    const origin = body.origin as Obj & { derivedOrigin: Obj };
    const { calendarName: _name, ...derived } = origin.derivedOrigin;
    return { ...body, origin: { ...origin, derivedOrigin: { ...derived, calendarId: this.#calendarIds.get(name)! } } };
  }

  #push(...statements: BatchItem<"sqlite">[]) {
    this.#out.push(...statements);
  }

  /** A guard that `table`'s row `id` still has the revision read: else the batch fails (a concurrent write). */
  #unchanged(table: string, id: string, revision: string) {
    return refuseWhen(this.db, WRITE_CONFLICT_GUARD, sql`NOT EXISTS (SELECT 1 FROM ${sql.identifier(table)} WHERE id = ${id} AND revision = ${revision})`, `${table} ${id} changed`);
  }

  #write(entry: PlanEntry, object: Obj | undefined): string | null {
    const db = this.db;
    const accountId = this.#accountId;
    const created = auditForCreate(this.principal);
    const updated = auditForUpdate(this.principal);
    const deleting = entry.status === "CAN_BE_DELETED";
    switch (entry.type) {
      case "group": {
        const row = this.state.groupRows.find((g) => g.name === entry.name);
        if (deleting) {
          this.#push(this.#unchanged("groups", row!.id, row!.revision), db.delete(groups).where(eq(groups.id, row!.id)));
          return row!.id;
        }
        const members = { description: (object!.description as string | undefined) ?? null, privileges: object!.privileges as string[] };
        if (row) {
          this.#push(this.#unchanged("groups", row.id, row.revision), db.update(groups).set({ ...members, revision: newRevision(), ...updated }).where(eq(groups.id, row.id)));
          return row.id;
        }
        const id = crypto.randomUUID();
        this.#groupIds.set(String(object!.name), id);
        this.#push(db.insert(groups).values({ id, revision: newRevision(), accountId, name: String(object!.name), ...members, builtIn: false, ...created }));
        return id;
      }
      case "quota": {
        if (deleting) {
          this.#push(db.delete(quotas).where(eq(quotas.accountId, accountId)));
          return accountId;
        }
        const limits = (object!.quotas as { type: string; limit: number }[]).map((q) => ({ accountId, type: q.type, limitValue: q.limit }));
        const revision = newRevision();
        this.#push(
          db.insert(quotas).values({ accountId, revision, ...created }).onConflictDoUpdate({ target: quotas.accountId, set: { revision, ...updated } }),
          db.delete(quotaLimits).where(eq(quotaLimits.accountId, accountId)),
          ...(limits.length > 0 ? [db.insert(quotaLimits).values(limits)] : []),
        );
        return accountId;
      }
      case "calendar": {
        const row = this.state.calendarRows.find((r) => r.name === entry.name);
        if (deleting) {
          this.#push(this.#unchanged("calendars", row!.id, row!.revision), db.delete(calendars).where(eq(calendars.id, row!.id)));
          return row!.id;
        }
        const definition = { type: String(object!.type), monthShift: (object!.monthShift as number | undefined) ?? null, fiscal445: (object!.fiscal445 as never) ?? null };
        if (row) {
          this.#push(this.#unchanged("calendars", row.id, row.revision), db.update(calendars).set({ ...definition, revision: newRevision(), ...updated }).where(eq(calendars.id, row.id)));
          return row.id;
        }
        const id = crypto.randomUUID();
        this.#calendarIds.set(String(object!.name), id);
        this.#push(calendarLimitGuard(db, accountId), db.insert(calendars).values({ id, revision: newRevision(), accountId, name: String(object!.name), ...definition, createdByUserName: this.principal.name, ...created }));
        return id;
      }
      case "jsonDataset": {
        const row = this.state.datasetRows.find((r) => r.name === entry.name);
        if (deleting) {
          this.#push(this.#unchanged("json_datasets", row!.id, row!.revision), db.delete(jsonDatasets).where(eq(jsonDatasets.id, row!.id)));
          return row!.id;
        }
        const data = newDataVersion(JSON.stringify(object!.data));
        const description = (object!.description as string | undefined) ?? null;
        if (row) {
          const revision = newRevision();
          const update = db
            .update(jsonDatasets)
            .set({ description, revision, dataVersion: data.version, dataBytes: data.bytes, chunkCount: data.chunks.length, ...updated })
            .where(and(eq(jsonDatasets.id, row.id), eq(jsonDatasets.revision, row.revision)));
          const guard = refuseWhen(db, WRITE_CONFLICT_GUARD, sql`NOT EXISTS (SELECT 1 FROM json_datasets WHERE id = ${row.id} AND revision = ${revision})`);
          this.#push(...replaceDataStatements(db, { accountId, id: row.id }, update, guard, data));
          return row.id;
        }
        const id = crypto.randomUUID();
        const dataset = { id, accountId, name: String(object!.name), description, revision: newRevision(), ...created };
        this.#push(...createDatasetStatements(db, dataset, data, this.maxDatasets).statements);
        return id;
      }
      case "source":
        return this.#writeSource(entry, object, deleting);
      default:
        throw new Error(`Import of ${entry.type} is not supported (the plan should have refused it)`);
    }
  }

  #writeSource(entry: PlanEntry, object: Obj | undefined, deleting: boolean): string {
    const db = this.db;
    const accountId = this.#accountId;
    const row = this.state.sourceRows.find((s) => s.name === entry.name);
    if (deleting) {
      this.#push(this.#unchanged("sources", row!.id, row!.revision), db.delete(sources).where(eq(sources.id, row!.id)));
      return row!.id;
    }
    const o = object!;
    const security = o.security as { fieldsSecurity: { enabled: boolean }; customMetricsSecurity: { enabled: boolean } };
    const connectionId = o.connection === undefined ? null : (this.state.connectionRows.find((r) => r.name === o.connection)?.id ?? null);
    const ownerUserId = o.owner === undefined ? null : (this.#userIds.get(String(o.owner)) ?? null);
    const members = {
      description: (o.description as string | undefined) ?? null,
      connectionId,
      features: o.features as string[],
      enabled: o.enabled as boolean,
      ownerUserId,
      fieldsSecurityEnabled: security.fieldsSecurity.enabled,
      customMetricsSecurityEnabled: security.customMetricsSecurity.enabled,
    };
    const id = row?.id ?? crypto.randomUUID();
    const changed = new Set(entry.changes?.map((ch) => ch.member) ?? ["fields", "customMetrics", "permissions"]);
    if (row) {
      this.#push(this.#unchanged("sources", row.id, row.revision), db.update(sources).set({ ...members, revision: newRevision(), ...auditForUpdate(this.principal) }).where(eq(sources.id, row.id)));
    } else {
      this.#push(db.insert(sources).values({ id, accountId, name: String(o.name), revision: newRevision(), ...members, ...auditForCreate(this.principal) }));
    }
    if (!row || changed.has("fields") || changed.has("customMetrics")) {
      if (row) this.#push(db.delete(sourceItems).where(eq(sourceItems.sourceId, id)));
      const created = auditForCreate(this.principal);
      const items = [
        ...(o.fields as Obj[]).map((f) => ({ kind: "FIELD", f })),
        ...(o.customMetrics as Obj[]).map((f) => ({ kind: "METRIC", f })),
      ].map(({ kind, f }) => {
        const { dataType, ...body } = f;
        return { id: crypto.randomUUID(), revision: newRevision(), sourceId: id, accountId, kind, name: String(f.name), dataType: String(dataType), body: this.#withCalendarId(body), ...created };
      });
      this.#push(...insertItems(db, items));
      // A derived field's and a hierarchy's references (and a derived field's calendar), as the field endpoints keep them.
      for (const f of o.fields as Obj[]) {
        const uses = fieldUses(f);
        if (!uses) continue;
        const calendarName = calendarNameOf(f);
        const calendarId = calendarName === undefined ? null : this.#calendarIds.get(calendarName)!;
        this.#push(...replaceReferences(db, { sourceId: id, accountId, userName: String(f.name), userKind: uses.kind, usedNames: uses.names, calendarId }));
      }
      // A metric's references (the items its expression names), as the metric endpoints keep them.
      for (const m of o.customMetrics as { name: string; expression: string }[]) {
        const parsed = parseExpression(m.expression);
        const usedNames = parsed.ok ? namesIn(parsed.ast) : [];
        if (usedNames.length > 0) this.#push(...replaceReferences(db, { sourceId: id, accountId, userName: m.name, userKind: "CUSTOM_METRIC", usedNames }));
      }
    }
    if (!row || changed.has("permissions")) {
      if (row) this.#push(db.delete(sourcePermissions).where(eq(sourcePermissions.sourceId, id)));
      for (const g of o.permissions as { principalType: string; principalName: string; permission: string }[]) {
        const principalId = (g.principalType === "USER" ? this.#userIds : this.#groupIds).get(g.principalName)!;
        this.#push(db.insert(sourcePermissions).values({ sourceId: id, accountId, principalType: g.principalType, principalId, permission: g.permission }));
      }
    }
    return id;
  }
}

/** The stored calendar a bundled derived field names, if any (the built-in one keeps its id and is not named). */
function calendarNameOf(field: Obj): string | undefined {
  const origin = field.origin as { type?: string; derivedOrigin?: { calendarName?: unknown } } | undefined;
  return origin?.type === "DERIVED" && typeof origin.derivedOrigin?.calendarName === "string" ? origin.derivedOrigin.calendarName : undefined;
}

/** What a derived field or a hierarchy uses, as its reference rows name it; undefined for a native field. */
function fieldUses(field: Obj): { kind: "DERIVED_FIELD" | "HIERARCHY"; names: string[] } | undefined {
  const origin = field.origin as
    | { type: "DERIVED"; derivedOrigin: { referencedFieldNames?: string[] } }
    | { type: "HIERARCHY"; hierarchyOrigin: { childParent: { childField: string; parentField: string }; labelField?: string } }
    | { type: "NATIVE" };
  if (origin.type === "DERIVED") return { kind: "DERIVED_FIELD", names: origin.derivedOrigin.referencedFieldNames ?? [] };
  if (origin.type === "HIERARCHY") {
    const { childParent, labelField } = origin.hierarchyOrigin;
    return { kind: "HIERARCHY", names: [childParent.childField, childParent.parentField, ...(labelField ? [labelField] : [])] };
  }
  return undefined;
}
