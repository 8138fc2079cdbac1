import { ROW_CHANGED } from "../../db/audit-trail";
import { diffMembers } from "../../domain/audit/changes";
import { and, eq, sql } from "drizzle-orm";
import type { Context } from "hono";
import { findConnector, listConnectors } from "../../connectors";
import type { Database } from "../../db/client";
import { compiled, ifMatchPlaceholder, inBatch, placeholders } from "../../db/compiled";
import { inJsonList, selectTypes, TYPE_COLUMNS, type ConnectionTypeRow, type TypeReader } from "../../db/connections";
import { accounts, connectionTypeAccounts, connectionTypes } from "../../db/schema";
import { storageTypeOf, typeParametersOf } from "../../domain/connectors/built-in-types";
import type { TypeParameter } from "../../domain/connectors/connection-parameters";
import type { Principal } from "../../domain/principal";
import { ApiError, duplicated, invalid, isConstraintError, notFound, type Problem } from "../../lib/errors";
import { assertSameId, ifMatchOf, auditForCreate, auditForUpdate, auditOut, checkIfMatch, etagOf, locationOf, newRevision, ifMatchValue } from "../../lib/http";
import { underReadRevision } from "../../lib/merge-patch-route";
import type { AppRouteHandler } from "../../lib/create-router";
import type { AppEnv } from "../../lib/types";
import { inUse } from "../connections/in-use";
import { connectionsOfTypeEverywhere, copyHolders, deleteTypeCopies, restoreTypeCopies, selectTypeAccounts, sweepTypeCopies, writeTypeCopies } from "../../db/shards/directory-copies";
import type { ConnectionTypePatch, ConnectionTypeWrite } from "./connection-types.schemas";
import type * as routes from "./connection-types.routes";

export function toConnectionType(row: ConnectionTypeRow) {
  return {
    id: row.id,
    connectorId: row.connectorId,
    enabled: row.enabled,
    disabledMessage: row.disabledMessage ?? null,
    name: row.name,
    description: row.description ?? null,
    type: row.type,
    subStorageType: row.subStorageType,
    minSupportedVersion: row.minSupportedVersion ?? null,
    maxSupportedVersion: row.maxSupportedVersion ?? null,
    onPremise: row.onPremise,
    parameters: row.parameters,
    ...auditOut(row),
  };
}

/** The supervisor reads every type; a user of an account, the types available to its account. */
const readerOf = (principal: Principal): TypeReader =>
  principal.kind === "supervisor" ? { kind: "all" } : { kind: "account", accountId: principal.accountId };

/**
 * Where a request reads types: the supervisor the directory, which holds them; a user its account's
 * shard, which keeps copies of them (db/shards/directory-copies.ts). One database on the default.
 */
const typesOf = (c: Context<AppEnv>) => (c.get("principal").kind === "supervisor" ? c.get("directory") : c.get("db"));

async function findType(c: Context<AppEnv>, id: string): Promise<ConnectionTypeRow> {
  const [row] = await selectTypes(typesOf(c), readerOf(c.get("principal")), { id });
  if (!row) throw notFound("Connection type");
  return row;
}

type TypeMembers = Omit<ConnectionTypeWrite, "id">;

/** The columns a write stores: the connector must exist, and the type must declare every key the connector requires. */
function typeColumns(body: TypeMembers) {
  const connector = findConnector(body.connectorId);
  if (!connector) {
    throw invalid("body.connectorId", `Unknown connector "${body.connectorId}"; the connectors are: ${listConnectors().map((d) => d.id).join(", ")}`);
  }
  const parameters: TypeParameter[] = body.parameters
    ? body.parameters.map((p, index) => ({
        key: p.key,
        label: p.label ?? p.key,
        valueType: p.valueType,
        required: p.required,
        values: p.values,
        visible: p.visible,
        sequenceNumber: p.sequenceNumber ?? index,
        helper: p.helper ?? null,
        userAttribute: p.userAttribute,
        requireValidation: p.requireValidation,
      }))
    : typeParametersOf(connector.parameters);
  const missing: Problem[] = connector.parameters
    .filter((d) => d.required && !d.prefix && !parameters.some((p) => p.key === d.key))
    .map((d) => ({ name: "body.parameters", message: `The ${connector.label} connector needs "${d.key}": declare it`, level: "ERROR" }));
  if (missing.length > 0) throw new ApiError("VALIDATION_FAILED", "The type leaves out parameters its connector needs", { problems: missing });
  const storage = storageTypeOf(connector);
  return {
    connectorId: connector.id,
    name: body.name,
    description: body.description ?? null,
    type: body.type ?? storage.type,
    subStorageType: body.subStorageType ?? storage.subStorageType,
    enabled: body.enabled,
    disabledMessage: body.disabledMessage ?? null,
    minSupportedVersion: body.minSupportedVersion ?? null,
    maxSupportedVersion: body.maxSupportedVersion ?? null,
    onPremise: body.onPremise,
    parameters,
  };
}

const typeTarget = (row: { id: string; name: string }) => ({ type: "connection-type" as const, id: row.id, name: row.name });

const nameTaken = (name: string) => duplicated(`A connection type named '${name}' already exists`);

/**
 * Writes `changes` over the type read as `current`: 412 if If-Match was beaten, 404 if it was deleted
 * meanwhile. The directory's row, then (over several databases) the type's copies, with its list of
 * accounts read in the write's own round trip.
 */
async function updateType(c: Context<AppEnv>, current: ConnectionTypeRow, changes: ReturnType<typeof typeColumns>) {
  const values = { ...changes, revision: newRevision(), ...auditForUpdate(c.get("principal")) };
  c.get("audit").recordIf(ROW_CHANGED, {
    accountId: null,
    action: "connection-type.update",
    target: typeTarget({ id: current.id, name: changes.name }),
    changes: diffMembers(toConnectionType(current), toConnectionType({ ...current, ...values })),
  });
  const directory = c.get("directory");
  const copied = copyHolders(c).length > 0;
  let updated: ConnectionTypeRow | undefined;
  let accountIds: string[] = [];
  try {
    const bound = { ...values, id: current.id, ifMatch: ifMatchValue(c, current.revision) };
    if (copied) {
      const [rows, listed] = await directory.batch([inBatch(updateTypeRow(directory), bound), selectTypeAccounts(directory, current.id)]);
      updated = rows[0];
      accountIds = listed.map((a) => a.accountId);
    } else {
      updated = await updateTypeRow(directory).get(bound);
    }
  } catch (err) {
    if (isConstraintError(err, "UNIQUE")) throw nameTaken(changes.name);
    throw err;
  }
  if (!updated) throw missedWrite(c);
  await writeTypeCopies(c, { row: updated, accounts: accountIds });
  c.header("ETag", etagOf(updated.revision));
  return c.json(toConnectionType(updated), 200);
}

// The writes of a type, compiled once per isolate (db/compiled.ts): Drizzle built their SQL on every request.
const insertTypeRow = compiled((db) => db.insert(connectionTypes).values(placeholders(...TYPE_COLUMNS)));
const updateTypeRow = compiled((db) =>
  db
    .update(connectionTypes)
    .set(placeholders(...TYPE_COLUMNS.filter((column) => column !== "id" && column !== "createdByUserId" && column !== "createdDate")))
    .where(and(eq(connectionTypes.id, sql.placeholder("id")), ifMatchPlaceholder(connectionTypes.revision)))
    .returning(),
);
const deleteTypeRow = compiled((db) =>
  db
    .delete(connectionTypes)
    .where(and(eq(connectionTypes.id, sql.placeholder("id")), ifMatchPlaceholder(connectionTypes.revision)))
    .returning({ id: connectionTypes.id }),
);

const missedWrite = (c: Context<AppEnv>) =>
  ifMatchOf(c)
    ? new ApiError("PRECONDITION_FAILED", "The connection type was changed concurrently; reload it and retry")
    : notFound("Connection type");

export const list: AppRouteHandler<typeof routes.list> = async (c) => {
  const { name, enabled } = c.req.valid("query");
  const rows = await selectTypes(typesOf(c), readerOf(c.get("principal")), { name, enabled });
  return c.json({ content: rows.map(toConnectionType) }, 200);
};

export const create: AppRouteHandler<typeof routes.create> = async (c) => {
  const row = { id: crypto.randomUUID(), revision: newRevision(), ...typeColumns(c.req.valid("json")), ...auditForCreate(c.get("principal")) };
  c.get("audit").record({ accountId: null, action: "connection-type.create", target: typeTarget(row) });
  try {
    await insertTypeRow(c.get("directory")).run(row);
  } catch (err) {
    if (isConstraintError(err, "UNIQUE")) throw nameTaken(row.name);
    throw err;
  }
  await writeTypeCopies(c, { row, accounts: [] }, `The connection type '${row.name}' was created (id ${row.id})`);
  c.header("Location", locationOf(c, row.id));
  c.header("ETag", etagOf(row.revision));
  return c.json(toConnectionType(row), 201);
};

export const getOne: AppRouteHandler<typeof routes.getOne> = async (c) => {
  const row = await findType(c, c.req.valid("param").id);
  c.header("ETag", etagOf(row.revision));
  return c.json(toConnectionType(row), 200);
};

export const update: AppRouteHandler<typeof routes.update> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  assertSameId(body.id, id);
  const current = await findType(c, id);
  checkIfMatch(c, current.revision);
  return updateType(c, current, typeColumns(body));
};

// The whole row is written from the one read: under that read's revision, so a concurrent change is never lost.
export const patch: AppRouteHandler<typeof routes.patch> = (c) =>
  underReadRevision(c, async (guardWith) => {
    const current = await findType(c, c.req.valid("param").id);
    checkIfMatch(c, current.revision);
    const body: ConnectionTypePatch = c.req.valid("json");
    const changed = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
    // A type that changes its connector takes that connector's parameters unless it declares its own.
    const parameters = body.connectorId !== undefined && body.connectorId !== current.connectorId ? undefined : current.parameters;
    guardWith(etagOf(current.revision));
    return updateType(c, current, typeColumns({ ...current, parameters, ...changed } as TypeMembers));
  }) as never;

/**
 * E4, refused (409 CONNECTION_TYPE_IN_USE) while a connection uses the type. On one database the
 * foreign key of connections refuses the delete. Over several, the shards' copies go first, at once,
 * each refused by its own shard's foreign key (deleteTypeCopies): from then on no connection of the
 * type can be created on a shard whose copy went, so none slips in between the check and the delete.
 * Then the directory's row goes, refused likewise by the connections of the directory's own database,
 * and the copies are deleted once more (sweepTypeCopies). A refusal anywhere puts the copies back as
 * the directory holds the type and names the connections of every database (docs/connections.md,
 * "Over several databases").
 */
export const remove: AppRouteHandler<typeof routes.remove> = async (c) => {
  const directory = c.get("directory");
  const current = await findType(c, c.req.valid("param").id);
  checkIfMatch(c, current.revision);
  for (let attempt = 0; ; attempt++) {
    try {
      const copies = await deleteTypeCopies(c, current.id);
      if (copies.failed.length > 0 || copies.inUse.length > 0) {
        await restoreTypeCopies(c, current.id);
        if (copies.failed.length > 0) throw copies.failed[0]!.error;
        throw new UsedOnAShard();
      }
      c.get("audit").recordIf(ROW_CHANGED, { accountId: null, action: "connection-type.delete", target: typeTarget(current) });
      const deleted = await deleteTypeRow(directory).all({ id: current.id, ifMatch: ifMatchValue(c, current.revision) });
      if (deleted.length === 0) {
        await restoreTypeCopies(c, current.id);
        throw missedWrite(c);
      }
      await sweepTypeCopies(c, current.id);
      return c.body(null, 204);
    } catch (err) {
      // The foreign key of connections: the database refuses while a connection uses the type.
      if (!(err instanceof UsedOnAShard) && !isConstraintError(err, "FOREIGN KEY")) throw err;
      if (!(err instanceof UsedOnAShard)) await restoreTypeCopies(c, current.id);
      const users = await connectionsOfTypeEverywhere(c, current.id);
      // The last user went away between the refusal and this read: try once more.
      if (users.length === 0 && attempt === 0) continue;
      throw inUse("CONNECTION_TYPE_IN_USE", { name: current.name, label: "connection type" }, users.map((u) => ({
        id: u.id,
        name: u.name,
        type: "CONNECTION",
        parent: { id: u.accountId, name: u.accountName, type: "ACCOUNT" },
      })));
    }
  }
};

/** A shard's copy of the type was kept by its foreign key: a connection there uses the type. */
class UsedOnAShard extends Error {}

export const getAccounts: AppRouteHandler<typeof routes.getAccounts> = async (c) => {
  const db = c.get("directory");
  const { id } = c.req.valid("param");
  const [type, rows] = await db.batch([inBatch(typeNamed(db), { id }), selectTypeAccounts(db, id)]);
  if (type.length === 0) throw notFound("Connection type");
  return c.json(rows.map((r) => r.accountId), 200);
};

// The statements of the two routes of a type's accounts, compiled once per isolate (db/compiled.ts).
const typeNamed = compiled((db) => db.select({ id: connectionTypes.id, name: connectionTypes.name }).from(connectionTypes).where(eq(connectionTypes.id, sql.placeholder("id"))));
const accountsListed = compiled((db) => db.select({ id: accounts.id }).from(accounts).where(inJsonList(accounts.id, sql.placeholder("accountIdsJson"))));
const unlistAccounts = compiled((db) => db.delete(connectionTypeAccounts).where(eq(connectionTypeAccounts.typeId, sql.placeholder("id"))));
// One statement, two bound values, however many accounts (D1 allows 100 values per statement). An
// account deleted meanwhile has no id to insert: NOT NULL fails the batch (the list has no foreign key to accounts).
const listAccounts = compiled((db) =>
  db
    .insert(connectionTypeAccounts)
    .select(sql`SELECT ${sql.placeholder("id")}, (SELECT accounts.id FROM accounts WHERE accounts.id = json_each.value) FROM json_each(${sql.placeholder("accountIdsJson")})`),
);
// A new revision: connection writes checked against the old account list are refused (db/connections.ts).
const revisedType = (db: Database) =>
  db.update(connectionTypes).set(placeholders("revision", "lastModifiedByUserId", "lastModifiedDate")).where(eq(connectionTypes.id, sql.placeholder("id")));
const reviseType = compiled(revisedType);
// Over several databases, the type's row as written, for its copies.
const reviseTypeReturning = compiled((db) => revisedType(db).returning());

/**
 * Replaces the type's list of accounts in the directory (with a new revision of the type), then,
 * over several databases, the type's copies with it.
 */
export const putAccounts: AppRouteHandler<typeof routes.putAccounts> = async (c) => {
  const db = c.get("directory");
  const { id } = c.req.valid("param");
  const accountIds = [...c.req.valid("json")].sort();
  const accountIdsJson = JSON.stringify(accountIds);
  const [type, known, before] = await db.batch([
    inBatch(typeNamed(db), { id }),
    inBatch(accountsListed(db), { accountIdsJson }),
    // The list being replaced, for the audit event (same round trip).
    selectTypeAccounts(db, id),
  ]);
  if (type.length === 0) throw notFound("Connection type");
  const found = new Set(known.map((a) => a.id));
  const problems: Problem[] = c.req
    .valid("json")
    .flatMap((accountId, i) => (found.has(accountId) ? [] : [{ name: `body[${i}]`, message: "No account with this id", level: "ERROR" as const }]));
  if (problems.length > 0) throw new ApiError("VALIDATION_FAILED", "Unknown accounts", { problems });
  c.get("audit").record({
    accountId: null,
    action: "connection-type.update",
    target: typeTarget(type[0]!),
    changes: diffMembers({ accounts: before.map((r) => r.accountId) }, { accounts: accountIds }),
  });
  const revision = { id, revision: newRevision(), ...auditForUpdate(c.get("principal")) };
  let written: ConnectionTypeRow | undefined;
  try {
    const [, , rows] = await db.batch([
      inBatch(unlistAccounts(db), { id }),
      inBatch(listAccounts(db), { id, accountIdsJson }),
      copyHolders(c).length > 0 ? inBatch(reviseTypeReturning(db), revision) : inBatch(reviseType(db), revision),
    ]);
    written = Array.isArray(rows) ? (rows[0] as ConnectionTypeRow | undefined) : undefined;
  } catch (err) {
    // The type (its foreign key) or an account was deleted meanwhile.
    if (isConstraintError(err, "FOREIGN KEY") || isConstraintError(err, "NOT NULL")) throw notFound("Connection type or account");
    throw err;
  }
  if (written) await writeTypeCopies(c, { row: written, accounts: accountIds }, `The accounts of the connection type '${written.name}' were replaced`);
  return c.json(accountIds, 200);
};
