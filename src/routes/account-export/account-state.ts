import { asc, eq, getTableColumns, sql, type SQL } from "drizzle-orm";
import { availableTo, inJsonList } from "../../db/connections";
import { isPrivateFolder } from "../../domain/folders/model";
import { DEFAULT_CALENDAR_ID } from "../../db/calendars";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { accountIdOf, compiledPerScope, scoped } from "../../db/scope";
import { inBatch, type PreparedLike } from "../../db/compiled";
import {
  accounts,
  calendars,
  connections,
  connectionTypes,
  folderAcl,
  folderItems,
  folders,
  groups,
  jsonDatasetChunks,
  jsonDatasets,
  materializedViews,
  quotaLimits,
  sourceItems,
  sourcePermissions,
  sources,
  userGroups,
  users,
} from "../../db/schema";
import { QUOTA_TYPES } from "../../domain/quota";
import {
  ACCOUNT_BUNDLE_FORMAT_VERSION,
  ACCOUNT_BUNDLE_SERVICE,
  folderPaths,
  namerOf,
  principalNamer,
  sortedBy,
  withoutEmpty,
} from "../../domain/transfer/account-bundle";
import type { Database } from "../../db/client";
import type { AccountScope } from "../../db/scope";
import { securityOf } from "../sources/sources.model";
import { secretKeysTest } from "../connections/connections.model";

/**
 * One read of readAccountState, compiled once per isolate for each kind of scope (db/scope.ts):
 * `of(column)` is the scope's condition and `column = target`, the account read. Drizzle built
 * these seventeen statements on every export and import.
 */
function statePart<P extends PreparedLike>(build: (db: Database, of: (column: SQLiteColumn) => SQL | undefined) => { prepare(): P }) {
  return compiledPerScope((db, scope) => build(db, (column) => scoped(column, scope, eq(column, sql.placeholder("target")))));
}

const stateReads = {
  account: statePart((db, of) => db.select({ name: accounts.name }).from(accounts).where(of(accounts.id))),
  groups: statePart((db, of) =>
    db.select({ id: groups.id, revision: groups.revision, name: groups.name, description: groups.description, privileges: groups.privileges, builtIn: groups.builtIn }).from(groups).where(of(groups.accountId)),
  ),
  users: statePart((db, of) => db.select({ id: users.id, name: users.name, roles: users.roles }).from(users).where(of(users.accountId))),
  memberships: statePart((db, of) => db.select({ userId: userGroups.userId, groupId: userGroups.groupId }).from(userGroups).where(of(userGroups.accountId))),
  limits: statePart((db, of) => db.select({ type: quotaLimits.type, limit: quotaLimits.limitValue }).from(quotaLimits).where(of(quotaLimits.accountId))),
  connections: statePart((db, of) => db.select().from(connections).where(of(connections.accountId))),
  // The types the account's connections use, and (for an import) those its bundle names, with whether the account may use each.
  types: statePart((db, of) =>
    db
      .select({ ...getTableColumns(connectionTypes), available: availableTo(sql.placeholder("target")) })
      .from(connectionTypes)
      .where(sql`${connectionTypes.id} IN (SELECT connection_type_id FROM connections WHERE ${of(connections.accountId)}) OR ${inJsonList(connectionTypes.name, sql.placeholder("typeNames"))}`),
  ),
  sources: statePart((db, of) => db.select().from(sources).where(of(sources.accountId))),
  items: statePart((db, of) =>
    db.select({ sourceId: sourceItems.sourceId, kind: sourceItems.kind, name: sourceItems.name, dataType: sourceItems.dataType, body: sourceItems.body }).from(sourceItems).where(of(sourceItems.accountId)),
  ),
  grants: statePart((db, of) =>
    db
      .select({ sourceId: sourcePermissions.sourceId, principalType: sourcePermissions.principalType, principalId: sourcePermissions.principalId, permission: sourcePermissions.permission })
      .from(sourcePermissions)
      .where(of(sourcePermissions.accountId)),
  ),
  calendars: statePart((db, of) => db.select().from(calendars).where(of(calendars.accountId))),
  datasets: statePart((db, of) =>
    db
      .select({ id: jsonDatasets.id, revision: jsonDatasets.revision, name: jsonDatasets.name, description: jsonDatasets.description, dataVersion: jsonDatasets.dataVersion, dataBytes: jsonDatasets.dataBytes })
      .from(jsonDatasets)
      .where(of(jsonDatasets.accountId)),
  ),
  chunks: statePart((db, of) =>
    db
      .select({ datasetId: jsonDatasetChunks.datasetId, version: jsonDatasetChunks.version, data: jsonDatasetChunks.data })
      .from(jsonDatasetChunks)
      .where(of(jsonDatasetChunks.accountId))
      .orderBy(asc(jsonDatasetChunks.datasetId), asc(jsonDatasetChunks.seq)),
  ),
  folders: statePart((db, of) => db.select().from(folders).where(of(folders.accountId))),
  acl: statePart((db, of) =>
    db.select({ folderId: folderAcl.folderId, principalType: folderAcl.principalType, principalId: folderAcl.principalId, permission: folderAcl.permission }).from(folderAcl).where(of(folderAcl.accountId)),
  ),
  itemMappings: statePart((db, of) =>
    db.select({ folderId: folderItems.folderId, itemType: folderItems.itemType, itemId: folderItems.itemId, name: folderItems.name }).from(folderItems).where(of(folderItems.accountId)),
  ),
  views: statePart((db, of) => db.select().from(materializedViews).where(of(materializedViews.accountId))),
};

/**
 * Everything an account defines, as stored: every read in one batch (one round trip), each query
 * scoped to the account and to the caller's scope, so a user naming another account reads none of
 * its rows. Undefined when the account is not found in the scope. The export turns it into the
 * bundle (bundleOf); the import reads the target with it too, for its ids and revisions and to
 * diff the bundle it receives against the target's own, built by the same code.
 */
export async function readAccountState(db: Database, scope: AccountScope, accountId: string, typeNames: readonly string[] = []) {
  const values = { accountId: accountIdOf(scope), target: accountId, typeNames: JSON.stringify(typeNames) };
  const read = <P extends PreparedLike & { execute(values?: Record<string, unknown>): unknown }>(part: (db: Database, scope: AccountScope) => P) => inBatch(part(db, scope), values);
  const r = stateReads;
  const [account, groupRows, userRows, memberships, limits, connectionRows, typeRows, sourceRows, itemRows, grantRows, calendarRows, datasetRows, chunkRows, folderRows, aclRows, itemMappings, viewRows] =
    await db.batch([
      read(r.account),
      read(r.groups),
      read(r.users),
      read(r.memberships),
      read(r.limits),
      read(r.connections),
      read(r.types),
      read(r.sources),
      read(r.items),
      read(r.grants),
      read(r.calendars),
      read(r.datasets),
      read(r.chunks),
      read(r.folders),
      read(r.acl),
      read(r.itemMappings),
      read(r.views),
    ]);
  if (account.length === 0) return undefined;
  return { account: account[0]!, groupRows, userRows, memberships, limits, connectionRows, typeRows, sourceRows, itemRows, grantRows, calendarRows, datasetRows, chunkRows, folderRows, aclRows, itemMappings, viewRows };
}

export type AccountState = NonNullable<Awaited<ReturnType<typeof readAccountState>>>;

/**
 * The bundle of a state: every id turned into the name or path of what it names. `raw` holds, for
 * each dataset's `data` placeholder object, its stored text (canonicalJson writes it untouched).
 */
export function bundleOf(state: AccountState) {
  const { account, groupRows, userRows, memberships, limits, connectionRows, typeRows, sourceRows, itemRows, grantRows, calendarRows, datasetRows, chunkRows, folderRows, aclRows, itemMappings, viewRows } = state;
  const nameOf = (rows: readonly { id: string; name: string }[]) => {
    const name = namerOf(rows);
    return (id: string | null | undefined) => (id == null ? null : (name(id) ?? null));
  };
  const groupName = nameOf(groupRows);
  const userName = nameOf(userRows);
  const connectionName = nameOf(connectionRows);
  const sourceName = nameOf(sourceRows);
  const calendarName = nameOf(calendarRows);
  const principal = principalNamer(userRows, groupRows);
  const paths = folderPaths(folderRows);
  const folderPath = (id: string | null) => (id === null ? null : (paths.get(id) ?? null));
  const grantsOf = <G extends { principalType: string; principalId: string }>(rows: readonly G[]) =>
    rows.flatMap((g) => {
      const name = principal(g.principalType, g.principalId);
      return name === undefined ? [] : [{ ...g, principalName: name }];
    });

  const bundleGroups = sortedBy(groupRows, (g) => g.name).map((g) =>
    withoutEmpty({ name: g.name, description: g.description, privileges: sortedBy(g.privileges, (p) => p), builtIn: g.builtIn }),
  );
  const bundleUsers = sortedBy(userRows, (u) => u.name).map((u) => ({
    name: u.name,
    roles: sortedBy(u.roles, (r) => r),
    groups: sortedBy(memberships.filter((m) => m.userId === u.id).map((m) => groupName(m.groupId)!).filter((n) => n !== null), (n) => n),
  }));
  const quota = limits.length === 0 ? null : { quotas: sortedBy(limits, (l) => String(QUOTA_TYPES.indexOf(l.type as never)).padStart(2, "0")) };

  const bundleConnections = sortedBy(connectionRows, (r) => r.name).map((r) => {
    const type = typeRows.find((t) => t.id === r.connectionTypeId)!;
    const isSecret = secretKeysTest(type);
    return withoutEmpty({
      name: r.name,
      connectionType: type.name,
      type: type.type,
      subStorageType: type.subStorageType,
      disabled: r.disabled,
      folder: folderPath(r.folderId),
      // A secret parameter is named without its value, as GET /api/connections/{id} shows it: never in clear.
      allParameters: r.parameters.map(({ key, value, sealed, systemAccess }) =>
        sealed !== undefined || isSecret(key) ? { key, systemAccess } : { key, value: value ?? "", systemAccess },
      ),
    });
  });

  const bundleSources = sortedBy(sourceRows, (s) => s.name).map((s) => {
    const own = sortedBy(
      itemRows.filter((i) => i.sourceId === s.id),
      (i) => i.name,
    );
    return withoutEmpty({
      name: s.name,
      description: s.description,
      connection: connectionName(s.connectionId),
      features: s.features,
      enabled: s.enabled,
      owner: userName(s.ownerUserId),
      security: securityOf(s),
      permissions: sortedBy(grantsOf(grantRows.filter((g) => g.sourceId === s.id)), (g) => [g.principalType, g.principalName]).map((g) => ({
        principalType: g.principalType,
        principalName: g.principalName,
        permission: g.permission,
      })),
      fields: own.filter((i) => i.kind === "FIELD").map((i) => ({ ...fieldBody(i.body, calendarName), name: i.name, dataType: i.dataType })),
      customMetrics: own.filter((i) => i.kind === "METRIC").map((i) => ({ ...i.body, name: i.name, dataType: i.dataType })),
    });
  });

  const bundleCalendars = sortedBy(calendarRows, (r) => r.name).map((r) =>
    r.type === "MONTH_SHIFT" ? { type: r.type, name: r.name, monthShift: r.monthShift } : { type: r.type, name: r.name, fiscal445: r.fiscal445 },
  );

  // A dataset's data is written as its stored text (canonicalJson's raw values): numbers stay as sent.
  const raw = new Map<object, string>();
  const bundleDatasets = sortedBy(datasetRows, (d) => d.name).map((d) => {
    const data = {};
    raw.set(
      data,
      chunkRows
        .filter((k) => k.datasetId === d.id && k.version === d.dataVersion)
        .map((k) => k.data)
        .join(""),
    );
    return withoutEmpty({ name: d.name, description: d.description, data });
  });

  // A private tree is its owner's alone (not even administrators see it): it stays out of the bundle.
  const bundleFolders = sortedBy(folderRows.filter((f) => !isPrivateFolder(f.folderType, f.visibility)), (f) => [f.contentType ?? "", ...paths.get(f.id)!]).map((f) => {
    const acl = new Map<string, { principalType: string; principalName: string; permissions: string[] }>();
    for (const g of grantsOf(aclRows.filter((a) => a.folderId === f.id))) {
      const key = `${g.principalType}:${g.principalName}`;
      if (!acl.has(key)) acl.set(key, { principalType: g.principalType, principalName: g.principalName, permissions: [] });
      acl.get(key)!.permissions.push(g.permission);
    }
    return withoutEmpty({
      path: paths.get(f.id)!,
      description: f.description,
      folderType: f.folderType,
      contentType: f.contentType,
      projectType: f.projectType,
      visibility: f.visibility,
      inheritanceState: f.inheritanceState,
      owner: userName(f.ownerUserId),
      permissions: sortedBy([...acl.values()], (g) => [g.principalType, g.principalName]).map((g) => ({ ...g, permissions: sortedBy(g.permissions, (p) => p) })),
      // The items are dashboards and reports kept outside this service: their own ids are how they are known.
      items: sortedBy(
        itemMappings.filter((i) => i.folderId === f.id),
        (i) => [i.name, i.itemType, i.itemId],
      ).map(({ itemType, itemId, name }) => ({ itemType, itemId, name })),
    });
  });

  const bundleViews = sortedBy(viewRows, (v) => v.name).map((v) => {
    const settings = v.storageSettings as { targetStorage?: Record<string, unknown> } | null;
    const storageSettings =
      settings === null
        ? null
        : (() => {
            const { connectionId: _id, ...target } = settings.targetStorage ?? {};
            return { ...settings, targetStorage: { ...target, connectionName: connectionName(v.targetConnectionId) } };
          })();
    // The definition names its source by id (`sourceId`): the view's `source` names it instead.
    const { sourceId: _source, ...definition } = v.definition;
    return withoutEmpty({ name: v.name, description: v.description, enabled: v.enabled, source: sourceName(v.sourceId), definition, storageSettings });
  });

  const bundle = withoutEmpty({
    formatVersion: ACCOUNT_BUNDLE_FORMAT_VERSION,
    service: ACCOUNT_BUNDLE_SERVICE,
    account: { name: account.name },
    groups: bundleGroups,
    users: bundleUsers,
    quota,
    connections: bundleConnections,
    calendars: bundleCalendars,
    sources: bundleSources,
    jsonDatasets: bundleDatasets,
    folders: bundleFolders,
    materializedViews: bundleViews,
  });
  return { bundle, raw, paths };
}

/** A field's stored members, its calendar named instead of by id (the built-in calendar, the same everywhere, keeps its fixed id). */
function fieldBody(body: Record<string, unknown>, calendarName: (id: string | null | undefined) => string | null): Record<string, unknown> {
  const origin = body.origin as { type: string; derivedOrigin?: Record<string, unknown> & { calendarId?: string } } | undefined;
  const calendarId = origin?.derivedOrigin?.calendarId;
  if (origin?.type !== "DERIVED" || calendarId === undefined || calendarId === DEFAULT_CALENDAR_ID) return body;
  const { calendarId: _id, ...derived } = origin.derivedOrigin!;
  return { ...body, origin: { ...origin, derivedOrigin: { ...derived, calendarName: calendarName(calendarId) } } };
}
