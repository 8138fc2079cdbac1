import { and, eq, getTableName, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { BatchItem } from "drizzle-orm/batch";
import type { Context } from "hono";
import { connectorEnvironment } from "../../connectors";
import { refusedBy, refuseWhen, WRITE_CONFLICT_GUARD } from "../../db/batch-guards";
import { createDatasetStatements, newDataVersion, replaceDataStatements } from "../../db/json-datasets";
import { calendarLimitGuard } from "../../db/calendars";
import { refuseIfConnectionUsed, refuseIfTypeChanged } from "../../db/connections";
import { replaceAclStatements } from "../../db/folder-writes";
import { viewLimitGuard } from "../../db/materialized-views";
import { scopeOf } from "../../db/scope";
import { insertItems, replaceReferences } from "../../db/source-items";
import { namesIn, parseExpression } from "../../domain/expression";
import { isPrivateFolder, type FolderPermission } from "../../domain/folders/model";
import { checkBundledItems, type BundledField, type BundledMetric } from "../../domain/source-bundle";
import { materializedViewQuery, SqlGenerationError } from "../../domain/sql";
import { calendars, connections, folderItems, folders, groups, jsonDatasets, materializedViews, quotaLimits, quotas, sourceItems, sourcePermissions, sources } from "../../db/schema";
import type { AuditChange, AuditRecord } from "../../domain/audit/event";
import { folderPaths, sortedBy } from "../../domain/transfer/account-bundle";
import {
  applied,
  folderKey,
  hasConflicts,
  keyOf,
  planImport,
  SECTIONS,
  withOwnersMapped,
  type ImportObjectType,
  type MemberChange,
  type PlanEntry,
  type PlannedBundle,
} from "../../domain/transfer/account-import-plan";
import type { PassphraseSealing } from "../../domain/transfer/passphrase-sealing";
import { ApiError, isConstraintError, notFound, type Problem } from "../../lib/errors";
import { auditForCreate, auditForUpdate, newRevision } from "../../lib/http";
import type { AppRouteHandler } from "../../lib/create-router";
import type { AppEnv } from "../../lib/types";
import { bundleOf, readAccountState, type AccountState } from "../account-export/account-state";
import { effectiveValues, parameterProblems, parametersToStore, secretKeysTest, storedValues, type GivenParameter } from "../connections/connections.model";
import { connectionSecrets } from "../connections/secrets";
import { dialectOf, namesOfDefinition, sqlDefinition, sqlSourceOf, tableOf } from "../materialized-views/materialized-views.model";
import { DefinitionSchema, StorageSettingsSchema } from "../materialized-views/materialized-views.schemas";
import { openSealedSecrets } from "../source-migration/sealed-secrets";
import type { Database } from "../../db/client";
import type { Principal } from "../../domain/principal";
import type * as routes from "./account-import.routes";

type Obj = Record<string, unknown>;
type Parameter = { key: string; value?: string; sealedValue?: string; systemAccess: boolean };
type Wanted = Omit<PlannedBundle, "connections"> & { users: { name: string }[]; jsonDatasets: Obj[]; connections: (Obj & { name: string; allParameters: Parameter[] })[]; secretsSealing?: PassphraseSealing };

/**
 * POST /api/accounts/{accountId}/import (docs/export-import.md): one read batch (the export's,
 * for the target's bundle, ids and revisions), the plan (a pure function), then, unless a dry run,
 * one write batch applying it: every object or none. Each existing row it changes or deletes is
 * guarded by the revision read, so a concurrent change fails the batch (409, nothing written).
 */
export const importAccount: AppRouteHandler<typeof routes.importAccount> = async (c) => {
  const { accountId } = c.req.valid("param");
  const { dryRun, prune } = c.req.valid("query");
  const wanted = c.req.valid("json") as unknown as Wanted;
  const principal = c.get("principal");
  const db = c.get("db");
  const duplicates = duplicateProblems(wanted);
  if (duplicates.length > 0) throw new ApiError("VALIDATION_FAILED", `Invalid bundle: ${duplicates[0]!.name}: ${duplicates[0]!.message}`, { problems: duplicates });
  // Sealed secrets are opened before anything is read (each becomes its parameter's value); one that does not open refuses the import.
  const unopened = [...(await openSealedSecrets(c, wanted)).values()].flat();
  if (unopened.length > 0) throw new ApiError("INVALID_PASSPHRASE", `The bundle's sealed secrets do not open: ${unopened[0]!.name}: ${unopened[0]!.message}`, { problems: unopened });
  const state = await readAccountState(db, scopeOf(principal), accountId, [...new Set(wanted.connections.map((bc) => String(bc.connectionType)))]);
  if (!state) throw notFound("Account");
  const secrets = takeSecrets(wanted, state);

  const { bundle: currentBundle, raw } = bundleOf(state);
  // The target's datasets as values (their stored text parsed), to compare with the bundle's parsed data.
  const current = {
    ...currentBundle,
    jsonDatasets: currentBundle.jsonDatasets.map((d) => ({ ...d, data: JSON.parse(raw.get(d.data as object) ?? "null") })),
  } as unknown as PlannedBundle;
  const targetUsers = new Set(state.userRows.map((u) => u.name));
  const importer = principal.kind === "user" ? (targetUsers.has(principal.name) ? principal.name : undefined) : firstAdministrator(state);
  const context = { prune, targetUsers, importer, maxFolderDepth: c.get("config").maxFolderDepth, givenSecrets: new Map([...secrets].map(([name, values]) => [name, new Set(values.keys())])) };
  let entries = planImport(wanted, current, context);
  entries = entries.map((e) => withWriteRules(e, principal, wanted, current, state));
  const prepared = await prepareWrites(c, entries, wanted, current, state, secrets, accountId);
  entries = prepared.entries;
  const users = wanted.users.map((u) => {
    const mappedTo = targetUsers.has(u.name) ? u.name : importer;
    return mappedTo === undefined ? { name: u.name } : { name: u.name, mappedTo };
  });

  if (dryRun) return c.json({ dryRun: true, entries, users }, 200);
  if (hasConflicts(entries)) {
    throw new ApiError("IMPORT_CONFLICT", "The bundle cannot be imported as it is: see each problem, and `plan` for the whole plan", {
      problems: entries
        .filter((e) => e.status === "CONFLICT")
        .map((e) => ({ name: `${e.type} ${e.path ? JSON.stringify(e.path) : (e.name ?? "")}`.trim(), message: e.conflicts!.join("; "), level: "ERROR" as const })),
      plan: { dryRun: true, entries, users },
    });
  }
  const writer = new Writer(c, accountId, state, withOwnersMapped(wanted, context) as Wanted, prepared);
  const statements = await writer.statements(entries, (r) => c.get("audit").record(r));
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
 * Who stands for a user the target lacks when the supervisor imports (it is no user, and a folder
 * needs an owning one): the target's first administrator by name, if it has one.
 */
function firstAdministrator(state: AccountState): string | undefined {
  const adminGroups = new Set(state.groupRows.filter((g) => g.privileges.includes("ROLE_ADMIN")).map((g) => g.id));
  const admins = state.userRows.filter((u) => u.roles.includes("ROLE_ADMIN") || state.memberships.some((m) => m.userId === u.id && adminGroups.has(m.groupId)));
  return sortedBy(admins, (u) => u.name)[0]?.name;
}

/** Two objects of one type with one name (folders: one path), or one item filed twice: a 400 naming each. */
function duplicateProblems(bundle: Wanted): Problem[] {
  const problems: Problem[] = [];
  const check = (seen: Set<string>, key: string, name: string, what: string) => {
    if (seen.has(key)) problems.push({ name, message: `Another ${what} of the bundle has this ${what === "folder" ? "content type and path" : what === "item" ? "type and id" : "name"}`, level: "ERROR" });
    seen.add(key);
  };
  for (const { type, section } of SECTIONS) {
    const seen = new Set<string>();
    if (section !== "quota") (bundle[section] as Obj[]).forEach((o, i) => check(seen, keyOf(type, o), `body.${section}[${i}]`, type));
  }
  const items = new Set<string>();
  bundle.folders.forEach((f, i) => (f.items as Obj[]).forEach((item, j) => check(items, `${String(item.itemType)}/${String(item.itemId)}`, `body.folders[${i}].items[${j}]`, "item")));
  return problems;
}

/**
 * The secret values the bundle gives, by connection and key: those opened from `sealedValue`s, and
 * any sent in clear for a key its type holds secret. Each is taken out of its parameter, which then
 * reads as the export shows a secret (its key only), so that the plan compares like with like and
 * never answers a secret.
 */
function takeSecrets(bundle: Wanted, state: AccountState): Map<string, Map<string, string>> {
  const secrets = new Map<string, Map<string, string>>();
  for (const connection of bundle.connections) {
    const type = state.typeRows.find((t) => t.name === connection.connectionType);
    const isSecret = type ? secretKeysTest(type) : () => false;
    connection.allParameters = connection.allParameters.map((p) => {
      if (p.value === undefined || (p.sealedValue === undefined && !isSecret(p.key))) return p;
      if (!secrets.has(connection.name)) secrets.set(connection.name, new Map());
      secrets.get(connection.name)!.set(p.key, p.value);
      return { key: p.key, systemAccess: p.systemAccess };
    });
  }
  delete bundle.secretsSealing;
  return secrets;
}

/** What the writes need beyond the plan, worked out before the batch: each written connection's parameters, each written view's SQL. */
interface Prepared {
  entries: PlanEntry[];
  connections: Map<string, { id: string; type: AccountState["typeRows"][number]; given: GivenParameter[]; values: Record<string, string> }>;
  viewQueries: Map<string, string>;
}

/**
 * Checks each written connection as the connection endpoints would (its type by name, available
 * and enabled; its parameters under the type and the connector, secrets kept or given), marks a
 * connection whose given secret differs from the stored one as updated (the member named, never
 * its values), and generates each written view's SQL from its source as it will be. What does not
 * hold is a CONFLICT.
 */
async function prepareWrites(c: Context<AppEnv>, entries: PlanEntry[], wanted: Wanted, current: PlannedBundle, state: AccountState, secrets: Map<string, Map<string, string>>, accountId: string): Promise<Prepared> {
  const out: Prepared = { entries: [], connections: new Map(), viewQueries: new Map() };
  const keys = connectionSecrets(c.env);
  for (let entry of entries) {
    const conflict = (why: string[]) => (entry = { ...entry, status: "CONFLICT", conflicts: [...(entry.conflicts ?? []), ...why] });
    const row = entry.type === "connection" ? state.connectionRows.find((r) => r.name === entry.name) : undefined;
    const given = secrets.get(entry.name ?? "");
    if (row && given && (entry.status === "UNCHANGED" || entry.status === "CAN_BE_UPDATED")) {
      const stored = await storedValues(row, keys);
      const changed = [...given].filter(([key, value]) => stored[key] !== value).map(([key]) => ({ member: `allParameters.${key}` }));
      if (changed.length > 0) entry = { ...entry, status: "CAN_BE_UPDATED", changes: [...(entry.changes ?? []), ...changed] };
    }
    const writes = entry.status === "CAN_BE_CREATED" || entry.status === "CAN_BE_UPDATED";
    if (writes && entry.type === "connection") {
      const object = wanted.connections.find((bc) => bc.name === entry.name)!;
      const type = state.typeRows.find((t) => t.name === object.connectionType);
      if (!type || !type.available) conflict([`No connection type named '${String(object.connectionType)}' is available to the account`]);
      else if (!type.enabled) conflict([type.disabledMessage || `The connection type '${type.name}' is disabled`]);
      else if (type.type !== object.type || type.subStorageType !== object.subStorageType) conflict([`Its type and subStorageType are not those of the connection type '${type.name}' (${type.type}, ${type.subStorageType})`]);
      else {
        const id = row?.id ?? crypto.randomUUID();
        const params = object.allParameters.map((p, index) => ({ key: p.key, value: p.value ?? given?.get(p.key), systemAccess: p.systemAccess, index }));
        const values = await effectiveValues(params, row?.parameters ?? [], { accountId, connectionId: id }, keys);
        const problems = parameterProblems(type, values, connectorEnvironment(c.env), { prefix: "", indexOf: () => undefined }).filter((p) => p.level === "ERROR");
        if (new Set(params.map((p) => p.key)).size < params.length) problems.push({ name: "allParameters", message: "A key is given twice", level: "ERROR" });
        if (problems.length > 0) conflict(problems.map((p) => p.message));
        else out.connections.set(entry.name!, { id, type, given: params, values });
      }
    }
    if (writes && entry.type === "materializedView") {
      const view = wanted.materializedViews.find((v) => v.name === entry.name)!;
      const query = viewQuery(view, wanted, current, state);
      if (typeof query === "string") out.viewQueries.set(entry.name!, query);
      else conflict(query.problems);
    }
    out.entries.push(entry);
  }
  return out;
}

/** A view's SQL, generated as the view endpoints would, from its source as the import leaves it (the bundle's, else the account's). */
function viewQuery(view: Obj, wanted: PlannedBundle, current: PlannedBundle, state: AccountState): string | { problems: string[] } {
  const definition = DefinitionSchema.safeParse({ ...(view.definition as Obj), sourceId: "-" });
  const settings = view.storageSettings === undefined ? undefined : (view.storageSettings as { targetStorage?: Obj });
  const storage = settings === undefined ? undefined : StorageSettingsSchema.safeParse({ ...settings, targetStorage: { ...withoutKey(settings.targetStorage ?? {}, "connectionName"), connectionId: "-" } });
  const issues = [...(definition.error?.issues.map((i) => `definition.${i.path.join(".")}: ${i.message}`) ?? []), ...(storage?.error?.issues.map((i) => `storageSettings.${i.path.join(".")}: ${i.message}`) ?? [])];
  if (issues.length > 0) return { problems: issues };
  const find = (section: "sources" | "connections", name: unknown) => wanted[section].find((o) => o.name === name) ?? current[section].find((o) => o.name === name);
  const source = find("sources", view.source);
  if (!source) return { problems: [] };
  const items = [
    ...(source.fields as Obj[]).map((f) => ({ name: String(f.name), kind: "FIELD", dataType: String(f.dataType), body: f })),
    ...(source.customMetrics as Obj[]).map((m) => ({ name: String(m.name), kind: "METRIC", dataType: String(m.dataType), body: m })),
  ];
  const tables = [...new Set(items.flatMap((i) => ((i.body.origin as { nativeOrigin?: { dataEntityId?: string } } | undefined)?.nativeOrigin?.dataEntityId ?? [])))];
  const connectorId = state.typeRows.find((t) => t.name === find("connections", source.connection)?.connectionType)?.connectorId;
  try {
    namesOfDefinition(definition.data!);
    return materializedViewQuery(sqlDefinition(definition.data!), sqlSourceOf(tableOf(tables), items), dialectOf(connectorId));
  } catch (err) {
    if (err instanceof SqlGenerationError || err instanceof ApiError) return { problems: [`Its definition does not hold against its source: ${err.message}`] };
    throw err;
  }
}

const withoutKey = (o: Obj, key: string) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));

/**
 * Rules of this service rather than of the bundle: only the supervisor sets an account's quota
 * (PUT /api/quota is the supervisor's); a source's fields and metrics must hold together (each
 * derived field, hierarchy and metric checked against what it uses, no cycle), and a derived
 * field's calendar must be the bundle's or the account's; a folder path the target holds twice
 * (sibling names are not unique) cannot be matched.
 */
function withWriteRules(entry: PlanEntry, principal: Principal, wanted: PlannedBundle, current: PlannedBundle, state: AccountState): PlanEntry {
  const writes = entry.status === "CAN_BE_CREATED" || entry.status === "CAN_BE_UPDATED" || entry.status === "CAN_BE_DELETED";
  const conflict = (why: string): PlanEntry => ({ ...entry, status: "CONFLICT", conflicts: [...(entry.conflicts ?? []), why] });
  if (entry.type === "quota" && writes && principal.kind !== "supervisor") return conflict("Only the supervisor sets or removes an account's quota");
  if (entry.type === "folder" && writes) {
    const key = keyOf("folder", { contentType: current.folders.concat(wanted.folders).find((f) => JSON.stringify(f.path) === JSON.stringify(entry.path))?.contentType, path: entry.path });
    const count = current.folders.filter((f) => keyOf("folder", f) === key).length;
    if (count > 1) return conflict(`The target account has ${count} folders at this path: rename one of them first`);
  }
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

/** A table of objects an account owns: rows keyed by id within the account. */
type AccountTable = SQLiteTable & { id: SQLiteColumn; accountId: SQLiteColumn };

/** The audit and plan names of a type. */
const AUDIT_TYPE: Partial<Record<ImportObjectType, AuditRecord["target"]["type"]>> = { jsonDataset: "json-dataset", materializedView: "materialized-view" };

/**
 * Turns a conflict-free plan into the statements of one batch and their audit events: creations
 * and updates in the plan's order (what is named before what names it), then deletions in the
 * reverse order (what names before what is named, a folder's children before it).
 */
class Writer {
  readonly #groupIds: Map<string, string>;
  readonly #userIds: Map<string, string>;
  /** Calendars, connections, sources by name: the account's, and those this import creates (written before what uses them). */
  readonly #calendarIds: Map<string, string>;
  readonly #connectionIds: Map<string, string>;
  readonly #sourceIds: Map<string, string>;
  /** Folders by key (content type and path): the account's, and those this import creates. */
  readonly #folders = new Map<string, { id: string; materializedPath: string; depth: number; projectId: string; existing: boolean }>();
  readonly #guardedParents = new Set<string>();
  readonly #out: BatchItem<"sqlite">[] = [];
  readonly #accountId: string;
  readonly #principal: Principal;
  readonly #db: Database;
  readonly #maxDatasets: number;

  constructor(
    private readonly c: Context<AppEnv>,
    accountId: string,
    private readonly state: AccountState,
    private readonly wanted: Wanted,
    private readonly prepared: Prepared,
  ) {
    this.#accountId = accountId;
    this.#principal = c.get("principal");
    this.#db = c.get("db");
    this.#maxDatasets = c.get("config").maxDatasetsPerAccount;
    this.#groupIds = new Map(state.groupRows.map((g) => [g.name, g.id]));
    this.#userIds = new Map(state.userRows.map((u) => [u.name, u.id]));
    this.#calendarIds = new Map(state.calendarRows.map((r) => [r.name, r.id]));
    this.#connectionIds = new Map(state.connectionRows.map((r) => [r.name, r.id]));
    this.#sourceIds = new Map(state.sourceRows.map((r) => [r.name, r.id]));
    const paths = folderPaths(state.folderRows);
    for (const f of state.folderRows.filter((f) => !isPrivateFolder(f.folderType, f.visibility))) this.#folders.set(folderKey(f.contentType, paths.get(f.id)!), { ...f, existing: true });
  }

  async statements(entries: readonly PlanEntry[], record: (r: AuditRecord) => void): Promise<BatchItem<"sqlite">[]> {
    // Deletions in the reverse order of the types; a folder's children before it (deeper paths first).
    const deletions = [...SECTIONS].reverse().flatMap(({ type }) => {
      const of = entries.filter((e) => e.type === type && e.status === "CAN_BE_DELETED");
      return type === "folder" ? of.sort((a, b) => b.path!.length - a.path!.length) : of;
    });
    for (const entry of [...entries.filter((e) => e.status === "CAN_BE_CREATED" || e.status === "CAN_BE_UPDATED"), ...deletions]) {
      const object = this.#wantedOf(entry);
      const id = await this.#write(entry, object);
      const type = AUDIT_TYPE[entry.type] ?? (entry.type as AuditRecord["target"]["type"]);
      const verb = entry.status === "CAN_BE_CREATED" ? "create" : entry.status === "CAN_BE_UPDATED" ? "update" : "delete";
      const name = entry.path ? entry.path.join("/") : (entry.name ?? null);
      record({ accountId: this.#accountId, action: `${type}.${verb}` as AuditRecord["action"], target: { type, id, name }, changes: entry.changes?.map(auditChange) });
    }
    return this.#out;
  }

  #wantedOf(entry: PlanEntry): Obj | undefined {
    const section = SECTIONS.find((s) => s.type === entry.type)!.section;
    const list = ([] as Obj[]).concat((this.wanted[section] as Obj | Obj[] | undefined) ?? []);
    const key = entry.type === "folder" ? JSON.stringify(entry.path) : entry.name;
    return list.find((o) => (entry.type === "folder" ? JSON.stringify(o.path) : o.name) === key);
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
    return refuseWhen(this.#db, WRITE_CONFLICT_GUARD, sql`NOT EXISTS (SELECT 1 FROM ${sql.identifier(table)} WHERE id = ${id} AND revision = ${revision})`, `${table} ${id} changed`);
  }

  /** A pruned row's deletion, guarded by the revision read (statements `before` come between the guard and the delete). */
  #delete(table: AccountTable, row: { id: string; revision: string }, ...before: BatchItem<"sqlite">[]): string {
    this.#push(this.#unchanged(getTableName(table), row.id, row.revision), ...before, this.#db.delete(table).where(and(eq(table.accountId, this.#accountId), eq(table.id, row.id))));
    return row.id;
  }

  /** The owner the mapped bundle names: a user of the target (the plan refuses a folder without one). */
  #ownerId(object: Obj): string | null {
    return object.owner === undefined ? null : (this.#userIds.get(String(object.owner)) ?? null);
  }

  #principalId(g: { principalType: string; principalName: string }): string {
    return (g.principalType === "USER" ? this.#userIds : this.#groupIds).get(g.principalName)!;
  }

  async #write(entry: PlanEntry, object: Obj | undefined): Promise<string | null> {
    const db = this.#db;
    const accountId = this.#accountId;
    const created = auditForCreate(this.#principal);
    const updated = auditForUpdate(this.#principal);
    const deleting = entry.status === "CAN_BE_DELETED";
    switch (entry.type) {
      case "group": {
        const row = this.state.groupRows.find((g) => g.name === entry.name);
        if (deleting) return this.#delete(groups, row!);
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
        if (deleting) return this.#delete(calendars, row!);
        const definition = { type: String(object!.type), monthShift: (object!.monthShift as number | undefined) ?? null, fiscal445: (object!.fiscal445 as never) ?? null };
        if (row) {
          this.#push(this.#unchanged("calendars", row.id, row.revision), db.update(calendars).set({ ...definition, revision: newRevision(), ...updated }).where(eq(calendars.id, row.id)));
          return row.id;
        }
        const id = crypto.randomUUID();
        this.#calendarIds.set(String(object!.name), id);
        this.#push(calendarLimitGuard(db, accountId), db.insert(calendars).values({ id, revision: newRevision(), accountId, name: String(object!.name), ...definition, createdByUserName: this.#principal.name, ...created }));
        return id;
      }
      case "jsonDataset": {
        const row = this.state.datasetRows.find((r) => r.name === entry.name);
        if (deleting) return this.#delete(jsonDatasets, row!);
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
        this.#push(...createDatasetStatements(db, dataset, data, this.#maxDatasets).statements);
        return id;
      }
      case "source":
        return this.#writeSource(entry, object, deleting);
      case "connection":
        return this.#writeConnection(entry, object, deleting);
      case "folder":
        return this.#writeFolder(entry, object, deleting);
      case "materializedView":
        return this.#writeView(entry, object, deleting);
    }
  }

  async #writeConnection(entry: PlanEntry, object: Obj | undefined, deleting: boolean): Promise<string> {
    const db = this.#db;
    const accountId = this.#accountId;
    const row = this.state.connectionRows.find((r) => r.name === entry.name);
    if (deleting) return this.#delete(connections, row!, refuseIfConnectionUsed(db, accountId, row!.id));
    const { id, type, given, values } = this.prepared.connections.get(entry.name!)!;
    // Secrets sealed with this deployment's key (a kept one stays as stored).
    const parameters = await parametersToStore(given, values, row?.parameters ?? [], secretKeysTest(type), { accountId, connectionId: id }, connectionSecrets(this.c.env));
    const folder = object!.folder as string[] | undefined;
    const folderId = folder === undefined ? null : [...this.#folders].find(([key]) => JSON.stringify(JSON.parse(key)[1]) === JSON.stringify(folder))![1].id;
    const members = { connectionTypeId: type.id, parameters, disabled: object!.disabled as boolean, folderId, revision: newRevision() };
    this.#connectionIds.set(entry.name!, id);
    if (row) {
      this.#push(refuseIfTypeChanged(db, type), this.#unchanged("connections", id, row.revision), db.update(connections).set({ ...members, ...auditForUpdate(this.#principal) }).where(and(eq(connections.accountId, accountId), eq(connections.id, id))));
    } else {
      this.#push(refuseIfTypeChanged(db, type), db.insert(connections).values({ id, accountId, name: entry.name!, creatingUserName: this.#principal.name, ...members, ...auditForCreate(this.#principal) }));
    }
    return id;
  }

  /**
   * A folder as the folder endpoints keep it: its path of ids and depth under its parent (an
   * existing parent guarded at the path read, so a move meanwhile fails the batch), its own ACL
   * and its items as the bundle says (an item filed elsewhere in the account moves here).
   */
  #writeFolder(entry: PlanEntry, object: Obj | undefined, deleting: boolean): string {
    const db = this.#db;
    const accountId = this.#accountId;
    const path = entry.path!;
    const row = this.state.folderRows.find((f) => this.#folders.get(folderKey(f.contentType, path))?.id === f.id);
    if (deleting) return this.#delete(folders, row!, db.delete(folderItems).where(eq(folderItems.folderId, row!.id)));
    const o = object!;
    const members = {
      description: (o.description as string | undefined) ?? null,
      folderType: String(o.folderType),
      projectType: String(o.projectType),
      visibility: String(o.visibility),
      inheritanceState: String(o.inheritanceState),
      ownerUserId: this.#ownerId(o)!,
      revision: newRevision(),
    };
    let id: string;
    if (row) {
      id = row.id;
      this.#push(this.#unchanged("folders", id, row.revision), db.update(folders).set({ ...members, ...auditForUpdate(this.#principal) }).where(eq(folders.id, id)));
    } else {
      id = crypto.randomUUID();
      const parent = path.length > 1 ? this.#folders.get(folderKey(o.contentType, path.slice(0, -1)))! : undefined;
      if (parent?.existing && !this.#guardedParents.has(parent.id)) {
        this.#guardedParents.add(parent.id);
        this.#push(refuseWhen(db, WRITE_CONFLICT_GUARD, sql`NOT EXISTS (SELECT 1 FROM folders WHERE id = ${parent.id} AND materialized_path = ${parent.materializedPath})`, "parent moved"));
      }
      // Paths name folders: a folder of this name made meanwhile (a concurrent import) fails the batch instead of doubling the path.
      const name = path.at(-1)!;
      this.#push(
        refuseWhen(
          db,
          WRITE_CONFLICT_GUARD,
          sql`EXISTS (SELECT 1 FROM folders WHERE account_id = ${accountId} AND parent_id IS ${parent?.id ?? null} AND name = ${name} AND content_type = ${String(o.contentType)} AND visibility != 'PRIVATE')`,
          "folder path taken",
        ),
      );
      const placed = { id, materializedPath: `${parent?.materializedPath ?? "/"}${id}/`, depth: parent ? parent.depth + 1 : 0, projectId: parent?.projectId ?? crypto.randomUUID(), existing: false };
      this.#folders.set(folderKey(o.contentType, path), placed);
      const { existing: _e, ...stored } = placed;
      this.#push(db.insert(folders).values({ ...stored, accountId, parentId: parent?.id ?? null, name, contentType: String(o.contentType), ...members, ...auditForCreate(this.#principal) }));
    }
    const changed = new Set(entry.changes?.map((ch) => ch.member) ?? ["permissions", "items"]);
    if (changed.has("permissions")) {
      const acl = (o.permissions as { principalType: "USER" | "GROUP"; principalName: string; permissions: FolderPermission[] }[]).flatMap((g) =>
        g.permissions.map((permission) => ({ principalType: g.principalType, principalId: this.#principalId(g), permission })),
      );
      this.#push(...replaceAclStatements(db, accountId, id, acl));
    }
    if (changed.has("items")) {
      const filed = { folderId: id, filedByUserId: this.#principal.id, filedDate: new Date().toISOString() };
      const items = (o.items as { itemType: string; itemId: string; name: string }[]).map((item) => ({ accountId, ...item, ...filed }));
      if (row) this.#push(db.delete(folderItems).where(eq(folderItems.folderId, id)));
      // An item is in one folder at a time: one filed elsewhere moves here. 7 columns and 3 of the update: 13 rows keep an INSERT under 100 parameters.
      for (let i = 0; i < items.length; i += 13) {
        this.#push(
          db
            .insert(folderItems)
            .values(items.slice(i, i + 13))
            .onConflictDoUpdate({ target: [folderItems.accountId, folderItems.itemType, folderItems.itemId], set: { folderId: id, name: sql`excluded.name`, filedByUserId: filed.filedByUserId, filedDate: filed.filedDate } }),
        );
      }
    }
    return id;
  }

  #writeView(entry: PlanEntry, object: Obj | undefined, deleting: boolean): string {
    const db = this.#db;
    const row = this.state.viewRows.find((v) => v.name === entry.name);
    if (deleting) return this.#delete(materializedViews, row!);
    const o = object!;
    const sourceId = this.#sourceIds.get(String(o.source))!;
    const settings = o.storageSettings as { targetStorage: Obj } | undefined;
    const targetConnectionId = settings ? this.#connectionIds.get(String(settings.targetStorage.connectionName))! : null;
    const members = {
      description: (o.description as string | undefined) ?? null,
      enabled: o.enabled as boolean,
      sourceId,
      definition: { ...(o.definition as Obj), sourceId },
      storageSettings: settings ? { ...settings, targetStorage: { ...withoutKey(settings.targetStorage, "connectionName"), connectionId: targetConnectionId } } : null,
      targetConnectionId,
      definitionQuery: this.prepared.viewQueries.get(entry.name!)!,
      revision: newRevision(),
    };
    if (row) {
      this.#push(this.#unchanged("materialized_views", row.id, row.revision), db.update(materializedViews).set({ ...members, ...auditForUpdate(this.#principal) }).where(eq(materializedViews.id, row.id)));
      return row.id;
    }
    const id = crypto.randomUUID();
    this.#push(viewLimitGuard(db, this.#accountId), db.insert(materializedViews).values({ id, accountId: this.#accountId, name: entry.name!, ...members, ...auditForCreate(this.#principal) }));
    return id;
  }

  #writeSource(entry: PlanEntry, object: Obj | undefined, deleting: boolean): string {
    const db = this.#db;
    const accountId = this.#accountId;
    const row = this.state.sourceRows.find((s) => s.name === entry.name);
    if (deleting) return this.#delete(sources, row!);
    const o = object!;
    const security = o.security as { fieldsSecurity: { enabled: boolean }; customMetricsSecurity: { enabled: boolean } };
    const connectionId = o.connection === undefined ? null : (this.#connectionIds.get(String(o.connection)) ?? null);
    const ownerUserId = this.#ownerId(o);
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
    this.#sourceIds.set(String(o.name), id);
    const changed = new Set(entry.changes?.map((ch) => ch.member) ?? ["fields", "customMetrics", "permissions"]);
    if (row) {
      this.#push(this.#unchanged("sources", row.id, row.revision), db.update(sources).set({ ...members, revision: newRevision(), ...auditForUpdate(this.#principal) }).where(eq(sources.id, row.id)));
    } else {
      this.#push(db.insert(sources).values({ id, accountId, name: String(o.name), revision: newRevision(), ...members, ...auditForCreate(this.#principal) }));
    }
    if (!row || changed.has("fields") || changed.has("customMetrics")) {
      if (row) this.#push(db.delete(sourceItems).where(eq(sourceItems.sourceId, id)));
      const created = auditForCreate(this.#principal);
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
        this.#push(db.insert(sourcePermissions).values({ sourceId: id, accountId, principalType: g.principalType, principalId: this.#principalId(g), permission: g.permission }));
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
