import { ROW_CHANGED, rowHasRevision } from "../../db/audit-trail";
import { diffMembers, secretChanged } from "../../domain/audit/changes";
import type { StoredParameter } from "../../db/schema";
import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Context } from "hono";
import { connectorEnvironment, createConnector, type ColumnDescription, type Connector } from "../../connectors";
import {
  findConnectionWithType,
  listConnectionsWithTypes,
  refusedFor,
  refuseIfConnectionUsed,
  refuseIfTypeChanged,
  refuseUnlessFolderExists,
  selectProjectOfFolder,
  selectTypesFor,
  sourcesOfConnection,
  type ConnectionRow,
} from "../../db/connections";
import { asViewUsages, selectViewsOfConnection } from "../../db/materialized-views";
import type { Database } from "../../db/client";
import { compiled, ifMatchPlaceholder, inBatch, placeholders } from "../../db/compiled";
import { quotaGuardStatement, rethrowQuotaExceeded } from "../../db/quota";
import { connections, connectionTypes } from "../../db/schema";
import { placedForWrite } from "../../db/scope";
import type { UserPrincipal } from "../../domain/principal";
import { ApiError, duplicated, invalid, isConstraintError, notFound, type Problem } from "../../lib/errors";
import { assertSameId, ifMatchOf, auditForUpdate, checkIfMatch, etagOf, locationOf, newRevision, ownLocation, ifMatchValue } from "../../lib/http";
import type { AppRouteHandler } from "../../lib/create-router";
import type { AppEnv } from "../../lib/types";
import {
  chooseType,
  effectiveValues,
  givenParameters,
  parameterProblems,
  parametersToStore,
  secretKeysTest,
  storageProblems,
  strategyOf,
  throwIfBlocking,
  toConnection,
  type Strategy,
} from "./connections.model";
import type { ConnectionWrite } from "./connections.schemas";
import { askStore, openStoredConnection } from "./data-store";
import { inUse } from "./in-use";
import { connectionSecrets } from "./secrets";
import { mergePatchHandler } from "../../lib/merge-patch-route";
import * as routes from "./connections.routes";

// Every route that reads or writes connections admits users of an account only: accountMember, or
// ROLE_MANAGE_CONNECTIONS, which the supervisor does not hold.
const userOf = (c: Context<AppEnv>) => c.get("principal") as UserPrincipal;

type WriteQuery = { strategy?: Strategy; connectionTypeMatchingStrategy?: Strategy; suppressWarnings?: boolean };

// The candidate types' read, compiled once per isolate for each strategy (db/compiled.ts): Drizzle
// building its nested selection was the largest share of a connection write's own JavaScript.
const typesById = compiled((db) => selectTypesFor(db, sql.placeholder("accountId"), eq(connectionTypes.id, sql.placeholder("typeId"))));
const typesByStorage = compiled((db) =>
  selectTypesFor(db, sql.placeholder("accountId"), and(eq(connectionTypes.type, sql.placeholder("type")), eq(connectionTypes.subStorageType, sql.placeholder("subStorageType")))),
);

/** The types a body may name, by its strategy (batchable): the one with its id, or those with its type and subStorageType. */
function candidateTypes(db: Database, accountId: string, strategy: Strategy, body: ConnectionWrite) {
  if (strategy === "BY_ID") return inBatch(typesById(db), { accountId, typeId: body.connectionTypeId ?? "" });
  return inBatch(typesByStorage(db), { accountId, type: body.type ?? "", subStorageType: body.subStorageType ?? "" });
}

const folderIdOf = (folderId: ConnectionWrite["folderId"]) => (folderId === undefined || folderId === null ? null : String(folderId));

/**
 * What a write and a validation share: one D1 read (the candidate types, and the stored connection
 * whose secrets fill keys sent without a value), the type chosen, every problem checked.
 */
async function checkedConnection(c: Context<AppEnv>, body: ConnectionWrite, query: WriteQuery, connectionId: string) {
  const db = c.get("db");
  const accountId = await placedForWrite(c, body.accountId);
  const given = givenParameters(body.allParameters);
  const strategy = strategyOf(query, body);
  const folderId = folderIdOf(body.folderId);
  const [candidates, stored, folder] = await db.batch([
    candidateTypes(db, accountId, strategy, body),
    inBatch(storedConnection(db), { accountId, id: connectionId }),
    selectProjectOfFolder(db, accountId, folderId),
  ]);
  const existing: ConnectionRow | undefined = stored[0];
  const place = { accountId, connectionId };
  const secrets = connectionSecrets(c.env);
  const values = await effectiveValues(given, existing?.parameters ?? [], place, secrets);
  const type = chooseType(strategy, body, candidates, Object.keys(values).filter((key) => values[key] !== ""));
  const environment = connectorEnvironment(c.env);
  const indexOf = (key: string) => given.find((g) => g.key === key)?.index;
  // Another account's folder and a missing one get the same answer.
  const folderProblems: Problem[] = folderId !== null && folder.length === 0 ? [{ name: "body.folderId", message: "No folder with this id in the account", level: "ERROR" }] : [];
  throwIfBlocking(
    [...(strategy === "BY_ID" ? storageProblems(body, type) : []), ...folderProblems, ...parameterProblems(type, values, environment, { prefix: "body.", indexOf })],
    query.suppressWarnings ?? false,
  );
  return { accountId, given, existing, type, values, place, secrets, environment, folderId };
}

/**
 * An update's changes for the audit trail. Parameters show as the API shows them; a secret one (sealed,
 * or a key the type declares secret) only says that it was sent anew, never a value.
 */
function connectionChanges(before: ConnectionRow, after: ConnectionRow, isSecret: (key: string) => boolean) {
  const secret = (p: StoredParameter) => p.sealed !== undefined || isSecret(p.key);
  const shown = (row: ConnectionRow) => ({
    name: row.name,
    disabled: row.disabled,
    connectionTypeId: row.connectionTypeId,
    folderId: row.folderId ?? null,
    allParameters: row.parameters.map((p) => (secret(p) ? { key: p.key, systemAccess: p.systemAccess } : { key: p.key, value: p.value ?? "", systemAccess: p.systemAccess })),
  });
  const sealedBefore = new Map(before.parameters.filter(secret).map((p) => [p.key, p.sealed ?? p.value]));
  const secretsSent = after.parameters.filter((p) => secret(p) && sealedBefore.get(p.key) !== (p.sealed ?? p.value)).map((p) => secretChanged(`allParameters.${p.key}`));
  return [...diffMembers(shown(before), shown(after)), ...secretsSent];
}

// The statements of E6 and POST, compiled once per isolate (db/compiled.ts): Drizzle building them was a fifth of E6's CPU.
/** The connection `id` of the account `accountId` (placeholders). */
const ofAccount = () => and(eq(connections.accountId, sql.placeholder("accountId")), eq(connections.id, sql.placeholder("id")));
const storedConnection = compiled((db) => db.select().from(connections).where(ofAccount()));
const WRITTEN_MEMBERS = ["name", "connectionTypeId", "parameters", "disabled", "folderId", "revision", "lastModifiedByUserId", "lastModifiedDate"] as const;
const updateConnection = compiled((db) =>
  db
    .update(connections)
    .set(placeholders(...WRITTEN_MEMBERS))
    .where(and(ofAccount(), ifMatchPlaceholder(connections.revision)))
    .returning(),
);
const insertConnection = compiled((db) =>
  db
    .insert(connections)
    .values(placeholders("id", "accountId", "creatingUserName", "createdByUserId", "createdDate", ...WRITTEN_MEMBERS))
    .returning(),
);

/**
 * E6 and POST: one read, one write batch. The batch starts with the CONNECTION quota guard (on
 * create) and a guard that the type is still the revision checked, so a type disabled or changed
 * meanwhile refuses the write; the write is then redone once from a fresh read. Two PUTs creating
 * one id: the primary key lets one insert win (201), the other is redone as an update (200).
 */
async function writeConnection(c: Context<AppEnv>, id: string, body: ConnectionWrite, query: WriteQuery, isPut: boolean, retried = false): Promise<Response> {
  const db = c.get("db");
  const principal = userOf(c);
  const checked = await checkedConnection(c, body, query, id);
  const { accountId, existing, type } = checked;
  if (existing) checkIfMatch(c, existing.revision);
  else if (isPut && ifMatchOf(c)) throw new ApiError("PRECONDITION_FAILED", "If-Match names a connection that does not exist; a PUT with If-Match never creates");
  const parameters = await parametersToStore(checked.given, checked.values, existing?.parameters ?? [], secretKeysTest(type), checked.place, checked.secrets);
  const audit = auditForUpdate(principal);
  const changes = { name: body.name, connectionTypeId: type.id, parameters, disabled: body.disabled, folderId: checked.folderId, revision: newRevision(), ...audit };
  const write = existing
    ? inBatch(updateConnection(db), { ...changes, accountId, id, ifMatch: ifMatchValue(c, existing.revision) })
    : inBatch(insertConnection(db), { id, accountId, creatingUserName: principal.name, createdByUserId: principal.id, createdDate: audit.lastModifiedDate, ...changes });
  c.get("audit").recordIf(rowHasRevision("connections", id, changes.revision), {
    accountId,
    action: existing ? "connection.update" : "connection.create",
    target: { type: "connection", id, name: body.name },
    changes: existing ? connectionChanges(existing, { ...existing, ...changes }, secretKeysTest(type)) : undefined,
  });
  const statements: BatchItem<"sqlite">[] = [
    ...(existing ? [] : [quotaGuardStatement(db, accountId, "CONNECTION")]),
    refuseIfTypeChanged(db, type),
    ...(changes.folderId === null ? [] : [refuseUnlessFolderExists(db, accountId, changes.folderId)]),
    write,
    selectProjectOfFolder(db, accountId, changes.folderId),
  ];

  let written: ConnectionRow | undefined;
  let projectId: string | null = null;
  try {
    const results = await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
    written = (results.at(-2) as ConnectionRow[])[0];
    projectId = (results.at(-1) as { projectId: string }[])[0]?.projectId ?? null;
  } catch (err) {
    if (!existing) await rethrowQuotaExceeded(db, err, accountId, "CONNECTION");
    // Another account's folder and a missing one get the same answer.
    if (refusedFor(err, "connection_folder_missing")) throw invalid("body.folderId", "No folder with this id in the account");
    if (isConstraintError(err, "UNIQUE", "connections.name")) throw duplicated(`A connection named '${body.name}' already exists in the account`);
    const raced = isConstraintError(err, "UNIQUE") || refusedFor(err, "connection_type_changed");
    if (raced && !retried) return writeConnection(c, id, body, query, isPut, true);
    if (refusedFor(err, "connection_type_changed")) throw new ApiError("PRECONDITION_FAILED", "The connection type changed while the connection was written; retry");
    throw err;
  }
  if (!written) {
    // The update missed: a concurrent write beat If-Match, or a delete came first (then a PUT creates).
    if (ifMatchOf(c)) throw new ApiError("PRECONDITION_FAILED", "The connection was changed concurrently; reload it and retry");
    if (!retried) return writeConnection(c, id, body, query, isPut, true);
    throw notFound("Connection");
  }
  c.header("ETag", etagOf(written.revision));
  if (existing) return c.json(toConnection(written, type, projectId), 200);
  c.header("Location", isPut ? ownLocation(c) : locationOf(c, id));
  return c.json(toConnection(written, type, projectId), 201);
}

export const list: AppRouteHandler<typeof routes.list> = async (c) => {
  const rows = await listConnectionsWithTypes(c.get("db"), userOf(c).accountId, c.req.valid("query"));
  return c.json({ content: rows.map((r) => toConnection(r.connection, r.type, r.projectId)) }, 200);
};

export const create: AppRouteHandler<typeof routes.create> = async (c) =>
  writeConnection(c, crypto.randomUUID(), c.req.valid("json"), c.req.valid("query"), false) as never;

export const upsert: AppRouteHandler<typeof routes.upsert> = async (c) => {
  const { connectionId } = c.req.valid("param");
  const body = c.req.valid("json");
  assertSameId(body.id, connectionId);
  return writeConnection(c, connectionId, body, c.req.valid("query"), true) as never;
};

export const validate: AppRouteHandler<typeof routes.validate> = async (c) => {
  const body = c.req.valid("json");
  const checked = await checkedConnection(c, body, c.req.valid("query"), body.id ?? "");
  const connector = createConnector(checked.type.connectorId, checked.values, checked.environment, { accountId: checked.accountId, database: c.get("db") });
  return c.json(await validationResultOf(connector), 200);
};

/** A stored connection of the account, tested as it is stored: one D1 read, then the connector. */
export const test: AppRouteHandler<typeof routes.test> = async (c) => {
  const { connector } = await openStoredConnection(c, c.req.valid("param").connectionId, c.req.valid("query").suppressWarnings);
  return c.json(await validationResultOf(connector), 200);
};

/** A ConnectionValidationResult: the connector's test never throws (src/connectors/connection-test.ts). */
async function validationResultOf(connector: Connector) {
  const { connected, message, warning } = await connector.test();
  return { connected, message, ...(warning ? { warning } : {}) };
}

export const getOne: AppRouteHandler<typeof routes.getOne> = async (c) => {
  const row = await findConnectionWithType(c.get("db"), userOf(c).accountId, c.req.valid("param").connectionId);
  if (!row) throw notFound("Connection");
  c.header("ETag", etagOf(row.connection.revision));
  return c.json(toConnection(row.connection, row.type, row.projectId), 200);
};

export const remove: AppRouteHandler<typeof routes.remove> = async (c) => {
  const db = c.get("db");
  const { accountId } = userOf(c);
  const { connectionId } = c.req.valid("param");
  const current = await storedConnection(db).get({ accountId, id: connectionId });
  if (!current) throw notFound("Connection");
  checkIfMatch(c, current.revision);
  for (let attempt = 0; ; attempt++) {
    c.get("audit").recordIf(ROW_CHANGED, { accountId, action: "connection.delete", target: { type: "connection", id: connectionId, name: current.name } });
    try {
      const [, deleted] = await db.batch([
        refuseIfConnectionUsed(db, accountId, connectionId),
        inBatch(deleteConnection(db), { accountId, id: connectionId, ifMatch: ifMatchValue(c, current.revision) }),
      ]);
      if (deleted.length > 0) return c.body(null, 204);
      if (ifMatchOf(c)) throw new ApiError("PRECONDITION_FAILED", "The connection was changed concurrently; reload it and retry");
      throw notFound("Connection");
    } catch (err) {
      if (!refusedFor(err, "connection_in_use")) throw err;
      const [usingSources, usingViews] = await db.batch([sourcesOfConnection(db, accountId, connectionId), selectViewsOfConnection(db, accountId, connectionId)]);
      const users = [...usingSources.map((s) => ({ id: s.id, name: s.name, type: "SOURCE" })), ...asViewUsages(usingViews)];
      // The last user went away between the refusal and this read: try once more.
      if (users.length === 0 && attempt === 0) continue;
      throw inUse("CONNECTION_IN_USE", { name: current.name, label: "connection" }, users);
    }
  }
};

// A deletion's write, compiled once per isolate (db/compiled.ts): Drizzle built its SQL on every
// request. `ifMatch` null: no If-Match, the last writer wins.
const deleteConnection = compiled((db) =>
  db
    .delete(connections)
    .where(and(ofAccount(), ifMatchPlaceholder(connections.revision)))
    .returning({ id: connections.id }),
);

const toColumn = (column: ColumnDescription) => ({ name: column.name, type: column.nativeType, nullable: column.nullable });

export const schemas: AppRouteHandler<typeof routes.schemas> = async (c) => {
  const { connector } = await openStoredConnection(c, c.req.valid("param").connectionId, c.req.valid("query").suppressWarnings);
  return c.json({ content: await askStore(() => connector.listSchemas()) }, 200);
};

export const describe: AppRouteHandler<typeof routes.describe> = async (c) => {
  const { connectionId, schemaName } = c.req.valid("param");
  const { connector } = await openStoredConnection(c, connectionId, c.req.valid("query").suppressWarnings);
  const tables = await askStore(() => connector.describeSchema(schemaName));
  return c.json({ schemaName, collections: tables.map((t) => ({ name: t.name, kind: t.kind, columns: t.columns.map(toColumn) })) }, 200);
};

export const preview: AppRouteHandler<typeof routes.preview> = async (c) => {
  const { schema, table, limit } = c.req.valid("json");
  const { connector } = await openStoredConnection(c, c.req.valid("param").connectionId, c.req.valid("query").suppressWarnings);
  const result = await askStore(() => connector.preview(schema, table, limit));
  return c.json({ columns: result.columns.map(toColumn), rows: result.rows }, 200);
};


/** JSON Merge Patch: the PUT applied to the object as read with the patch merged in (src/lib/merge-patch-route.ts). */
export const patch = mergePatchHandler({ read: getOne, put: routes.upsert, write: upsert }) as unknown as AppRouteHandler<typeof routes.patch>;
