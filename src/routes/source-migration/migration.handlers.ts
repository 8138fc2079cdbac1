import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Context } from "hono";
import { connectorEnvironment } from "../../connectors";
import { refusedBy, refuseWhen, WRITE_CONFLICT_GUARD } from "../../db/batch-guards";
import { DEFAULT_CALENDAR_ID } from "../../db/calendars";
import { inJsonList, refusedFor, refuseIfTypeChanged, refuseUnlessConnectionExists, selectTypesFor, type ConnectionRow, type TypeForAccount } from "../../db/connections";
import { quotaGuardStatement, rethrowQuotaExceeded } from "../../db/quota";
import { connections, connectionTypes, groups, sourceItems, sourcePermissions, sourceReferences, sources } from "../../db/schema";
import { compiledSourcesWithAccess, permissionOn, requireSource, type SourceWithAccess } from "../../db/source-access";
import { clearItemsOf } from "../../db/source-items";
import { compiled, inBatch, placeholders } from "../../db/compiled";
import { diffMembers } from "../../domain/audit/changes";
import { hasPrivilege, type UserPrincipal } from "../../domain/principal";
import { canWrite } from "../../domain/source-permissions";
import { actionFor, checkBundledItems, insertionFor, statusOf, type Action, type ImportSettings } from "../../domain/source-bundle";
import type { FieldDataType } from "../../domain/source-fields";
import { ApiError, isConstraintError, type Problem } from "../../lib/errors";
import { auditForCreate, auditForUpdate, newRevision } from "../../lib/http";
import type { AppRouteHandler } from "../../lib/create-router";
import type { AppEnv } from "../../lib/types";
import { effectiveValues, parameterProblems, parametersToStore, secretKeysTest, toConnection, type GivenParameter } from "../connections/connections.model";
import { connectionSecrets } from "../connections/secrets";
import { openSealedSecrets, passphraseOf, sealSecrets } from "./sealed-secrets";
import { securityOf } from "../sources/sources.model";
import { metricBody, toMetric, VOLUME_METRIC } from "../custom-metrics/metrics.model";
import { buildField, chooseFieldName, toField, type StoredOrigin } from "../source-fields/fields.model";
import type { FieldInput } from "../source-fields/fields.schemas";
import { BUNDLE_FORMAT_VERSION, type BundledConnection, type BundledSource, type ImportedResource, type SourcesMigration } from "./migration.schemas";
import type * as routes from "./migration.routes";

/**
 * GET /api/sources/export and POST /api/sources/import (docs/export-import.md). The export reads
 * in one round trip; the import reads what the bundle names in one round trip and writes every
 * object in one batch (one transaction), with its guards and audit events.
 */
const AUDIT_MEMBERS = ["createdByUserID", "createdDate", "lastModifiedByUserID", "lastModifiedDate"];
/** A field or metric as GET answers it, less its audit members and null members: what a create takes back. */
const bundled = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([k, v]) => !AUDIT_MEMBERS.includes(k) && v !== null));
// Both routes demand a privilege only users of an account hold.
const userOf = (c: Context<AppEnv>) => c.get("principal") as UserPrincipal;

type SourceRow = typeof sources.$inferSelect;
const definitionOf = (row: SourceRow) => ({
  id: row.id,
  name: row.name,
  description: row.description ?? null,
  connectionId: row.connectionId ?? null,
  features: row.features,
  enabled: row.enabled,
});

// The export's reads, compiled once per isolate (db/compiled.ts): the sources (`ids`, a JSON array),
// their items, and the connections they name with those connections' types. A join (connections with
// their types) is read as two queries: its duplicate column names (id, name) do not survive a D1 batch's rows.
const usedConnectionIds = sql`SELECT s.connection_id FROM sources s WHERE s.account_id = ${sql.placeholder("accountId")} AND s.id IN (SELECT value FROM json_each(${sql.placeholder("ids")}))`;
const exportReads = {
  sources: compiledSourcesWithAccess(inJsonList(sources.id, sql.placeholder("ids"))),
  items: compiled((db) =>
    db
      .select()
      .from(sourceItems)
      .where(and(eq(sourceItems.accountId, sql.placeholder("accountId")), inJsonList(sourceItems.sourceId, sql.placeholder("ids"))))
      .orderBy(sourceItems.kind, sourceItems.name),
  ),
  connections: compiled((db) =>
    db
      .select()
      .from(connections)
      .where(and(eq(connections.accountId, sql.placeholder("accountId")), sql`"connections"."id" IN (${usedConnectionIds})`))
      .orderBy(connections.name),
  ),
  types: compiled((db) =>
    db
      .select()
      .from(connectionTypes)
      .where(sql`"connection_types"."id" IN (SELECT c.connection_type_id FROM connections c WHERE c.account_id = ${sql.placeholder("accountId")} AND c.id IN (${usedConnectionIds}))`),
  ),
};

export const exportSources: AppRouteHandler<typeof routes.exportSources> = async (c) => {
  const { ids } = c.req.valid("query");
  const db = c.get("db");
  const principal = userOf(c);
  const { accountId } = principal;
  const sourcesRead = exportReads.sources(db, principal);
  const values = { ...sourcesRead.values, accountId, ids: JSON.stringify(ids) };
  const [rows, items, used, types] = await db.batch([
    inBatch(sourcesRead.query, values),
    inBatch(exportReads.items(db), values),
    inBatch(exportReads.connections(db), values),
    inBatch(exportReads.types(db), values),
  ]);
  const exported = ids.map((id) => requireSource(principal, (rows as SourceWithAccess[]).find((r) => r.source.id === id), "READ").source);
  const passphrase = passphraseOf(c);
  const shown = used.map((connection) => {
    const type = types.find((t) => t.id === connection.connectionTypeId)!;
    const { id, name, connectionTypeId, type: storage, subStorageType, disabled, allParameters } = toConnection(connection, type, null);
    return { id, name, connectionTypeId, type: storage, subStorageType, disabled, allParameters };
  });
  const secrets = passphrase === undefined ? { connections: shown } : await sealSecrets(c, passphrase, accountId, shown, used);
  return c.json(
    {
      version: BUNDLE_FORMAT_VERSION,
      ...secrets,
      sources: exported.map((source) => {
        const own = items.filter((i) => i.sourceId === source.id);
        return {
          definition: definitionOf(source),
          fields: own.filter((i) => i.kind === "FIELD").map((i) => bundled(toField(i))),
          customMetrics: own.filter((i) => i.kind === "METRIC").map((i) => bundled(toMetric(i))),
          security: securityOf(source),
        };
      }),
    } as never,
    200,
  );
};

// ---------------------------------------------------------------- import

type Query = { suppressWarnings?: boolean; enableDefaultRead?: boolean; dryRun?: boolean; accountId?: string };

/** Problems of the bundle itself, before anything is read: a 400 naming each member. */
function bundleProblems(body: SourcesMigration): Problem[] {
  const problems: Problem[] = [];
  const unique = <T>(list: readonly T[], key: (t: T) => string, member: (i: number) => string, what: string) => {
    const seen = new Set<string>();
    list.forEach((t, i) => {
      if (seen.has(key(t))) problems.push({ name: member(i), message: `${what} '${key(t)}' appears twice in the bundle`, level: "ERROR" });
      seen.add(key(t));
    });
    return seen;
  };
  const connectionIds = unique(body.connections, (c) => c.id, (i) => `body.connections[${i}].id`, "The connection id");
  unique(body.connections, (c) => c.name, (i) => `body.connections[${i}].name`, "The connection name");
  const sourceIds = unique(body.sources, (s) => s.definition.id, (i) => `body.sources[${i}].definition.id`, "The source id");
  unique(body.sources, (s) => s.definition.name, (i) => `body.sources[${i}].definition.name`, "The source name");
  body.sources.forEach((s, i) => {
    const id = s.definition.connectionId;
    if (id != null && !connectionIds.has(id)) {
      problems.push({ name: `body.sources[${i}].definition.connectionId`, message: "Names no connection of the bundle's `connections`", level: "ERROR" });
    }
  });
  const levels = body.importSettings?.objectLevel;
  for (const [cls, known] of [["sources", sourceIds], ["connections", connectionIds]] as const) {
    for (const key of Object.keys(levels?.[cls] ?? {})) {
      if (!known.has(key)) problems.push({ name: `body.importSettings.objectLevel.${cls}.${key}`, message: `Names no ${cls.slice(0, -1)} of the bundle (by its id there)`, level: "ERROR" });
    }
  }
  return problems;
}

interface ConnectionPlan {
  bundled: BundledConnection;
  index: number;
  existing?: ConnectionRow;
  action?: Action;
  /** The id in the account: the existing one's, or the new one's. */
  id: string | null;
  type?: TypeForAccount["type"];
  given: GivenParameter[];
  values: Record<string, string>;
  problems: Problem[];
}

interface ItemRow {
  id: string;
  kind: "FIELD" | "METRIC";
  name: string;
  dataType: string;
  body: Record<string, unknown>;
}

interface SourcePlan {
  bundled: BundledSource;
  index: number;
  existing?: SourceWithAccess;
  action?: Action;
  id: string | null;
  connectionId: string | null;
  items: ItemRow[];
  references: [user: string, kind: string, used: string][];
  problems: Problem[];
}

const problem = (name: string, message: string, level: Problem["level"] = "ERROR"): Problem => ({ name, message, level });

// readTarget's reads, compiled once per isolate (db/compiled.ts); each list of names or ids is one JSON parameter.
const targetReads = {
  sources: compiledSourcesWithAccess(inJsonList(sources.name, sql.placeholder("sourceNames"))),
  connections: compiled((db) =>
    db.select().from(connections).where(and(eq(connections.accountId, sql.placeholder("accountId")), inJsonList(connections.name, sql.placeholder("connectionNames")))),
  ),
  types: compiled((db) => selectTypesFor(db, sql.placeholder("accountId"), inJsonList(connectionTypes.id, sql.placeholder("typeIds")))),
  usersGroup: compiled((db) =>
    db
      .select({ id: groups.id })
      .from(groups)
      .where(and(eq(groups.accountId, sql.placeholder("accountId")), eq(groups.builtIn, true), eq(groups.name, "Users"))),
  ),
};

/** One round trip: what the bundle names in the account (sources and connections by name, types by id, the Users group). */
async function readTarget(c: Context<AppEnv>, body: SourcesMigration, accountId: string) {
  const db = c.get("db");
  const principal = userOf(c);
  const sourcesRead = targetReads.sources(db, principal);
  const values = {
    ...sourcesRead.values,
    accountId,
    sourceNames: JSON.stringify(body.sources.map((s) => s.definition.name)),
    connectionNames: JSON.stringify(body.connections.map((bc) => bc.name)),
    typeIds: JSON.stringify([...new Set(body.connections.map((bc) => bc.connectionTypeId))]),
  };
  const [existingSources, existingConnections, types, usersGroup] = await db.batch([
    inBatch(sourcesRead.query, values),
    inBatch(targetReads.connections(db), values),
    inBatch(targetReads.types(db), values),
    inBatch(targetReads.usersGroup(db), values),
  ]);
  return { existingSources: existingSources as SourceWithAccess[], existingConnections, types, usersGroupId: usersGroup[0]?.id };
}

async function planConnection(c: Context<AppEnv>, bundled: BundledConnection, index: number, target: Awaited<ReturnType<typeof readTarget>>, settings: ImportSettings | undefined, accountId: string): Promise<ConnectionPlan> {
  const at = `body.connections[${index}]`;
  const existing = target.existingConnections.find((e) => e.name === bundled.name);
  const chosen = actionFor(insertionFor(settings, "connections", bundled.id), existing !== undefined, "connection", bundled.name);
  const plan: ConnectionPlan = { bundled, index, existing, id: existing?.id ?? null, given: [], values: {}, problems: [] };
  if (typeof chosen === "object") {
    plan.problems.push(problem(at, chosen.problem));
    return plan;
  }
  plan.action = chosen;
  if (chosen === "REUSE") return plan;
  if (!hasPrivilege(userOf(c), "ROLE_MANAGE_CONNECTIONS")) plan.problems.push(problem(at, `${chosen === "CREATE" ? "Creating" : "Updating"} a connection needs ROLE_MANAGE_CONNECTIONS`));
  const candidate = target.types.find((t) => t.type.id === bundled.connectionTypeId && t.available);
  if (!candidate) plan.problems.push(problem(`${at}.connectionTypeId`, "No connection type with this id is available to the account"));
  else if (!candidate.type.enabled) plan.problems.push(problem(`${at}.connectionTypeId`, candidate.type.disabledMessage || `The connection type '${candidate.type.name}' is disabled`));
  const keys = new Set<string>();
  plan.given = bundled.allParameters.map((p, i) => {
    if (keys.has(p.key)) plan.problems.push(problem(`${at}.allParameters[${i}].key`, `"${p.key}" is given twice`));
    keys.add(p.key);
    return { key: p.key, value: p.value, systemAccess: p.systemAccess, index: i };
  });
  if (!candidate || plan.problems.length > 0) return plan;
  plan.type = candidate.type;
  plan.id = existing?.id ?? crypto.randomUUID();
  const isSecret = secretKeysTest(candidate.type);
  if (chosen === "CREATE") {
    for (const g of plan.given) {
      if (g.value === undefined && isSecret(g.key) && bundled.allParameters[g.index]?.sealedValue === undefined) {
        plan.problems.push(
          problem(`${at}.allParameters[${g.index}]`, `"${g.key}" is secret and secrets are never exported: create the connection in the account first (the import then reuses or updates it), or give its value in the bundle`),
        );
      }
    }
  }
  // An update keeps the stored value of a key given without one (a secret above all); opening it may answer 409 CONNECTION_SECRETS_UNAVAILABLE.
  plan.values = await effectiveValues(plan.given, existing?.parameters ?? [], { accountId, connectionId: plan.id }, connectionSecrets(c.env));
  const indexOf = (key: string) => plan.given.find((g) => g.key === key)?.index;
  plan.problems.push(...parameterProblems(candidate.type, plan.values, connectorEnvironment(c.env), { prefix: `${at}.`, indexOf }));
  return plan;
}

/** The stored origin of a bundled field, once checked. */
function storedOrigin(input: FieldInput, referencedFields: string[]): StoredOrigin {
  if (input.origin.type !== "DERIVED") return input.origin as StoredOrigin;
  const { expression, calendarId } = input.origin.derivedOrigin;
  return { type: "DERIVED", derivedOrigin: { expression, ...(calendarId && { calendarId }), referencedFieldNames: referencedFields } };
}

function planSource(c: Context<AppEnv>, bundled: BundledSource, index: number, target: Awaited<ReturnType<typeof readTarget>>, settings: ImportSettings | undefined, connectionPlans: ConnectionPlan[]): SourcePlan {
  const at = `body.sources[${index}]`;
  const { definition } = bundled;
  const existing = target.existingSources.find((e) => e.source.name === definition.name);
  const chosen = actionFor(insertionFor(settings, "sources", definition.id), existing !== undefined, "source", definition.name);
  const connection = definition.connectionId == null ? undefined : connectionPlans.find((p) => p.bundled.id === definition.connectionId);
  const plan: SourcePlan = { bundled, index, existing, id: existing?.source.id ?? null, connectionId: connection?.id ?? null, items: [], references: [], problems: [] };
  if (typeof chosen === "object") {
    plan.problems.push(problem(at, chosen.problem));
    return plan;
  }
  plan.action = chosen;
  if (chosen === "REUSE") return plan;
  if (existing && !canWrite(permissionOn(userOf(c), existing))) plan.problems.push(problem(at, "Updating the source needs WRITE permission on it"));
  if (connection && (connection.action === undefined || connection.problems.length > 0)) plan.problems.push(problem(`${at}.definition.connectionId`, `Its connection '${connection.bundled.name}' cannot be imported`));
  // Field names are chosen first (a field may come without one), so that every item is checked under its final name.
  const taken = new Set<string>([...bundled.fields.flatMap((f) => (f.name ? [f.name] : [])), ...bundled.customMetrics.map((m) => m.name)]);
  const fieldNames = bundled.fields.map((f) => {
    if (f.name) return f.name;
    const name = chooseFieldName(f, taken);
    taken.add(name);
    return name;
  });
  const checked = checkBundledItems(
    bundled.fields.map((f, i) => ({ name: fieldNames[i]!, dataType: f.dataType, origin: f.origin })),
    bundled.customMetrics,
  );
  plan.problems.push(...checked.problems.map((p) => problem(`${at}.${p.member}`, p.message)));
  bundled.fields.forEach((f, i) => {
    const calendarId = f.origin.type === "DERIVED" ? f.origin.derivedOrigin.calendarId : undefined;
    if (calendarId !== undefined && calendarId !== DEFAULT_CALENDAR_ID) {
      plan.problems.push(problem(`${at}.fields[${i}].origin.derivedOrigin.calendarId`, "Stored calendars are not part of a bundle: only the built-in calendar `default` can be imported"));
    }
  });
  if (plan.problems.length > 0) return plan;
  plan.id = existing?.source.id ?? crypto.randomUUID();
  for (const item of checked.items) {
    if (item.kind === "METRIC") {
      plan.items.push({ id: crypto.randomUUID(), kind: "METRIC", name: item.name, dataType: item.dataType, body: metricBody(item.name, bundled.customMetrics[item.index]!) });
    } else {
      const input = bundled.fields[item.index]!;
      try {
        const field = buildField(input, item.name, item.dataType as FieldDataType, storedOrigin(input, item.referencedFields), definition.features);
        plan.items.push({ id: crypto.randomUUID(), kind: "FIELD", ...field });
      } catch (err) {
        if (!(err instanceof ApiError) || !err.problems) throw err;
        plan.problems.push(...err.problems.map((p) => ({ ...p, name: p.name.replace(/^body\./, `${at}.fields[${item.index}].`) })));
      }
    }
    for (const used of new Set(item.references?.names ?? [])) plan.references.push([item.name, item.references!.kind, used]);
  }
  if (!plan.items.some((i) => i.name === VOLUME_METRIC.name)) plan.items.push({ id: crypto.randomUUID(), kind: "METRIC", ...VOLUME_METRIC });
  return plan;
}

/*
 * The import's writes, compiled once per isolate (db/compiled.ts): Drizzle built each on every
 * import. A source's items and references are each one JSON parameter read with json_each, so
 * their statements' SQL does not depend on how many there are.
 */
const ph = (name: string) => sql.placeholder(name);
const CONNECTION_MEMBERS = ["name", "connectionTypeId", "parameters", "disabled", "revision", "lastModifiedByUserId", "lastModifiedDate"] as const;
const SOURCE_MEMBERS = ["name", "description", "connectionId", "features", "enabled", "fieldsSecurityEnabled", "customMetricsSecurityEnabled", "revision", "lastModifiedByUserId", "lastModifiedDate"] as const;
const importWrites = {
  insertConnection: compiled((db) => db.insert(connections).values(placeholders("id", "accountId", "folderId", "creatingUserName", "createdByUserId", "createdDate", ...CONNECTION_MEMBERS))),
  connectionUnchanged: compiled((db) =>
    refuseWhen(db, WRITE_CONFLICT_GUARD, sql`NOT EXISTS (SELECT 1 FROM connections WHERE account_id = ${ph("accountId")} AND id = ${ph("id")} AND revision = ${ph("checked")})`),
  ),
  updateConnection: compiled((db) =>
    db
      .update(connections)
      .set(placeholders(...CONNECTION_MEMBERS))
      .where(and(eq(connections.accountId, ph("accountId")), eq(connections.id, ph("id")))),
  ),
  insertSource: compiled((db) => db.insert(sources).values(placeholders("id", "accountId", "ownerUserId", "createdByUserId", "createdDate", ...SOURCE_MEMBERS))),
  sourceUnchanged: compiled((db) => refuseWhen(db, WRITE_CONFLICT_GUARD, sql`NOT EXISTS (SELECT 1 FROM sources WHERE id = ${ph("id")} AND revision = ${ph("checked")})`)),
  updateSource: compiled((db) => db.update(sources).set(placeholders(...SOURCE_MEMBERS)).where(eq(sources.id, ph("id")))),
  // Columns in the table's order: id, source_id, account_id, kind, name, data_type, body, revision, then the audit columns.
  insertItems: compiled((db) =>
    db.insert(sourceItems).select(sql`SELECT json_extract(value, '$.id'), ${ph("sourceId")}, ${ph("accountId")}, json_extract(value, '$.kind'), json_extract(value, '$.name'), json_extract(value, '$.dataType'),
        json_extract(value, '$.body'), json_extract(value, '$.revision'), ${ph("createdByUserId")}, ${ph("createdDate")}, ${ph("lastModifiedByUserId")}, ${ph("lastModifiedDate")}
      FROM json_each(${ph("items")})`),
  ),
  // source_id, account_id, user_name, user_kind, used_name.
  insertReferences: compiled((db) =>
    db.insert(sourceReferences).select(sql`SELECT ${ph("sourceId")}, ${ph("accountId")}, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(${ph("references")})`),
  ),
  grant: compiled((db) => db.insert(sourcePermissions).values(placeholders("sourceId", "accountId", "principalType", "principalId", "permission"))),
};

/** The statements that store a source's items and references, whatever their number: two, each with its rows as one JSON parameter. */
function itemStatements(c: Context<AppEnv>, plan: SourcePlan, accountId: string, audit: ReturnType<typeof auditForCreate>) {
  const db = c.get("db");
  const values = {
    ...audit,
    sourceId: plan.id,
    accountId,
    items: JSON.stringify(plan.items.map((i) => ({ ...i, revision: newRevision() }))),
    references: JSON.stringify(plan.references),
  };
  return [inBatch(importWrites.insertItems(db), values), inBatch(importWrites.insertReferences(db), values)];
}

/** The statements of one connection's write, after sealing its secrets. */
async function connectionStatements(c: Context<AppEnv>, plan: ConnectionPlan, accountId: string): Promise<BatchItem<"sqlite">[]> {
  const db = c.get("db");
  const principal = userOf(c);
  const type = plan.type!;
  const place = { accountId, connectionId: plan.id! };
  const parameters = await parametersToStore(plan.given, plan.values, plan.existing?.parameters ?? [], secretKeysTest(type), place, connectionSecrets(c.env));
  const audit = auditForUpdate(principal);
  const changes = { name: plan.bundled.name, connectionTypeId: type.id, parameters, disabled: plan.bundled.disabled, revision: newRevision(), ...audit };
  const target = { type: "connection" as const, id: plan.id!, name: plan.bundled.name };
  if (!plan.existing) {
    c.get("audit").record({ accountId, action: "connection.create", target });
    return [
      refuseIfTypeChanged(db, type),
      inBatch(importWrites.insertConnection(db), { id: plan.id!, accountId, folderId: null, creatingUserName: principal.name, createdByUserId: principal.id, createdDate: audit.lastModifiedDate, ...changes }),
    ];
  }
  const before = plan.existing;
  const shown = (row: { connectionTypeId: string; disabled: boolean; parameters: { key: string; value?: string; sealed?: string }[] }) => ({
    connectionTypeId: row.connectionTypeId,
    disabled: row.disabled,
    // Secret values show as their key only: an event never holds one.
    allParameters: row.parameters.map((p) => (p.sealed !== undefined || secretKeysTest(type)(p.key) ? { key: p.key } : { key: p.key, value: p.value ?? "" })),
  });
  c.get("audit").record({ accountId, action: "connection.update", target, changes: diffMembers(shown(before), shown({ ...before, ...changes })) });
  const values = { ...changes, accountId, id: plan.id!, checked: before.revision };
  return [refuseIfTypeChanged(db, type), inBatch(importWrites.connectionUnchanged(db), values), inBatch(importWrites.updateConnection(db), values)];
}

function sourceStatements(c: Context<AppEnv>, plan: SourcePlan, accountId: string, grantTo: string | undefined): BatchItem<"sqlite">[] {
  const db = c.get("db");
  const principal = userOf(c);
  const { definition, security } = plan.bundled;
  const audit = auditForCreate(principal);
  const own = {
    name: definition.name,
    description: definition.description ?? null,
    connectionId: plan.connectionId,
    features: [...new Set(definition.features)],
    enabled: definition.enabled,
    fieldsSecurityEnabled: security?.fieldsSecurity.enabled ?? false,
    customMetricsSecurityEnabled: security?.customMetricsSecurity.enabled ?? false,
    revision: newRevision(),
  };
  const target = { type: "source" as const, id: plan.id!, name: definition.name };
  if (!plan.existing) {
    c.get("audit").record({ accountId, action: "source.create", target });
    return [
      inBatch(importWrites.insertSource(db), { id: plan.id!, accountId, ownerUserId: principal.id, ...own, ...audit }),
      ...itemStatements(c, plan, accountId, audit),
      ...(grantTo ? [inBatch(importWrites.grant(db), { sourceId: plan.id!, accountId, principalType: "GROUP", principalId: grantTo, permission: "READ" })] : []),
    ];
  }
  const before = plan.existing.source;
  const shown = (row: Omit<typeof own, "revision">) => ({ ...definitionOf({ ...before, ...row }), id: undefined, ...securityOf(row) });
  c.get("audit").record({ accountId, action: "source.update", target, changes: diffMembers(shown(before), shown(own)) });
  const values = { ...own, ...auditForUpdate(principal), id: plan.id!, checked: before.revision };
  return [
    inBatch(importWrites.sourceUnchanged(db), values),
    inBatch(importWrites.updateSource(db), values),
    // Its fields and metrics become the bundle's.
    ...clearItemsOf(db, plan.id!),
    ...itemStatements(c, plan, accountId, audit),
  ];
}

const hrefOf = (c: Context<AppEnv>, collection: "sources" | "connections", id: string | null) =>
  id === null ? null : `${new URL(c.req.url).pathname.replace(/\/sources\/import\/?$/, "")}/${collection}/${encodeURIComponent(id)}`;

/** The id an object has (or keeps) in the account: none for one that failed new, or that a dry run would create. */
function accountIdOf(plan: ConnectionPlan | SourcePlan, dryRun: boolean): string | null {
  if (plan.problems.length > 0) return plan.existing ? plan.id : null;
  return dryRun && plan.action === "CREATE" ? null : plan.id;
}

function resultOf(c: Context<AppEnv>, connectionPlans: ConnectionPlan[], sourcePlans: SourcePlan[], dryRun: boolean) {
  const resource = (collection: "sources" | "connections", plan: ConnectionPlan | SourcePlan, name: string, bundleId: string, dependencies: ImportedResource["dependencies"]): ImportedResource => {
    const id = accountIdOf(plan, dryRun);
    const status = statusOf(plan.problems.length > 0 ? undefined : plan.action, dryRun);
    return { id, bundleId, name, status, href: hrefOf(c, collection, id), dependencies, problems: plan.problems };
  };
  const connectionOf = (p: SourcePlan) => connectionPlans.find((cp) => cp.bundled.id === p.bundled.definition.connectionId);
  return {
    sources: sourcePlans.map((p) => {
      const connection = connectionOf(p);
      return resource("sources", p, p.bundled.definition.name, p.bundled.definition.id, connection ? [{ type: "CONNECTION", id: accountIdOf(connection, dryRun) }] : []);
    }),
    connections: connectionPlans.map((p) => resource("connections", p, p.bundled.name, p.bundled.id, [])),
  };
}

/** A batch refused because another request changed what the plan was made on: the import is planned again once. */
const raced = (err: unknown) =>
  isConstraintError(err, "UNIQUE") || refusedBy(err, WRITE_CONFLICT_GUARD) || refusedFor(err, "connection_type_changed") || refusedFor(err, "connection_missing");

export const importSources: AppRouteHandler<typeof routes.importSources> = async (c) => {
  const body = c.req.valid("json");
  const query: Query = c.req.valid("query");
  const principal = userOf(c);
  if (query.accountId !== undefined && query.accountId !== principal.accountId) {
    throw new ApiError("ACCOUNT_FORBIDDEN", "You may not act on another account", { problems: [problem("query.accountId", "Must be your own account")] });
  }
  const { accountId } = principal;
  const structural = bundleProblems(body);
  if (structural.length > 0) throw new ApiError("VALIDATION_FAILED", `Invalid bundle: ${structural[0]!.name}: ${structural[0]!.message}`, { problems: structural });
  const settings = body.importSettings as ImportSettings | undefined;
  // Sealed secret values opened once, before any read: each becomes its parameter's value.
  const sealed = await openSealedSecrets(c, body);
  const blocking = (p: Problem) => p.level === "ERROR" || !query.suppressWarnings;

  for (let attempt = 0; ; attempt++) {
    const target = await readTarget(c, body, accountId);
    const connectionPlans: ConnectionPlan[] = [];
    for (const [i, bundled] of body.connections.entries()) {
      const plan = await planConnection(c, bundled, i, target, settings, accountId);
      plan.problems.push(...(sealed.get(i) ?? []));
      connectionPlans.push(plan);
    }
    for (const plan of connectionPlans) plan.problems = plan.problems.filter(blocking);
    const sourcePlans = body.sources.map((bundled, i) => planSource(c, bundled, i, target, settings, connectionPlans));
    if (query.dryRun) return c.json(resultOf(c, connectionPlans, sourcePlans, true), 200);
    const problems = [...connectionPlans, ...sourcePlans].flatMap((p) => p.problems);
    if (problems.length > 0) {
      throw new ApiError("VALIDATION_FAILED", `Nothing was imported: ${problems.length} problem${problems.length > 1 ? "s" : ""}, the first: ${problems[0]!.name}: ${problems[0]!.message}`, { problems });
    }

    const db = c.get("db");
    const written = (p: { action?: Action }) => p.action === "CREATE" || p.action === "UPDATE";
    const created = (list: { action?: Action }[]) => list.filter((p) => p.action === "CREATE").length;
    const statements: BatchItem<"sqlite">[] = [
      ...(created(sourcePlans) > 0 ? [quotaGuardStatement(db, accountId, "SOURCE", created(sourcePlans))] : []),
      ...(created(connectionPlans) > 0 ? [quotaGuardStatement(db, accountId, "CONNECTION", created(connectionPlans))] : []),
    ];
    for (const plan of connectionPlans.filter(written)) statements.push(...(await connectionStatements(c, plan, accountId)));
    // A reused connection that a written source names must still be there when the batch runs.
    const reusedConnections = new Set(sourcePlans.filter(written).flatMap((s) => connectionPlans.filter((p) => p.action === "REUSE" && p.id === s.connectionId).map((p) => p.id!)));
    for (const id of reusedConnections) statements.push(refuseUnlessConnectionExists(db, accountId, id));
    for (const plan of sourcePlans.filter(written)) statements.push(...sourceStatements(c, plan, accountId, query.enableDefaultRead ? target.usersGroupId : undefined));
    try {
      if (statements.length > 0) await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
    } catch (err) {
      // Both guards refuse alike: the message names the SOURCE quota when the import creates sources.
      await rethrowQuotaExceeded(db, err, accountId, created(sourcePlans) > 0 ? "SOURCE" : "CONNECTION");
      if (raced(err) && attempt === 0) continue;
      if (raced(err)) throw new ApiError("CONCURRENT_UPDATE", "Other requests kept changing the sources or connections the bundle names while it was imported; send it again");
      throw err;
    }
    return c.json(resultOf(c, connectionPlans, sourcePlans, false), 200);
  }
};
