import { and, asc, eq, getTableColumns, sql } from "drizzle-orm";
import type { Context } from "hono";
import { rowHasRevision } from "../../db/audit-trail";
import { diffMembers, secretChanged } from "../../domain/audit/changes";
import { ADMINISTRATORS_PRIVILEGES } from "../../domain/privileges";
import { invalidateAccount } from "../../auth/cache";
import { revokeTokens } from "../../db/access-tokens";
import { deleteAccountStatements } from "../../db/account-owned";
import type { Database } from "../../db/client";
import { compiled, ifMatchPlaceholder, inBatch, placeholders } from "../../db/compiled";
import { insertGroup } from "../../db/groups";
import { accountMoves, accounts, connectionTypeAccounts, type AccountAttribute } from "../../db/schema";
import { countPerShard, forgetPlacement, placeByAccountName, placeNewAccount, shardIsDirectory } from "../../db/shards/routing";
import { writeAcross } from "../../db/shards/write-across";
import { releaseUserNamesOf } from "../../db/shards/user-names";
import { deleteAccountFromTypeCopies } from "../../db/shards/directory-copies";
import { shardOfRow } from "../../db/shards/config";
import { refuseBesideWrapper } from "../../lib/aliases";
import { ApiError, duplicated, invalid, isConstraintError, notFound } from "../../lib/errors";
import { assertSameId, auditForCreate, auditForUpdate, auditOut, checkIfMatch, etagOf, locationOf, newRevision, ifMatchValue } from "../../lib/http";
import type { AppRouteHandler } from "../../lib/create-router";
import type { AppEnv } from "../../lib/types";
import type { AccountCreate, AccountWrite } from "./accounts.schemas";
import { mergePatchHandler } from "../../lib/merge-patch-route";
import * as routes from "./accounts.routes";

type AccountRow = typeof accounts.$inferSelect & { numberOfUsers: number };

const accountColumns = {
  ...getTableColumns(accounts),
  // `accounts.id` spelled out: in a single-table select Drizzle renders ${accounts.id} as a bare "id", which the subquery would resolve to users.id.
  numberOfUsers: sql<number>`(SELECT count(*) FROM users WHERE users.account_id = accounts.id)`.mapWith(Number),
};

function selectAccounts(db: Database) {
  return db.select(accountColumns).from(accounts);
}

// The account reads, compiled once per isolate (db/compiled.ts): Drizzle built their SQL on every request.
const accountById = compiled((db) => selectAccounts(db).where(eq(accounts.id, sql.placeholder("id"))));
const accountByName = compiled((db) => selectAccounts(db).where(eq(accounts.name, sql.placeholder("name"))));

/**
 * The list reads only what its shape shows, as values, and builds each row's object itself with
 * the columns' own decoders: over the 300 accounts of the bench, Drizzle's mapping of every column
 * into an object first cost about as much as the shape and its JSON together (docs/performance.md,
 * "A list of 300 accounts"). A test compares each listed account with its own GET.
 */
const listedColumns = {
  id: accounts.id,
  name: accounts.name,
  disabled: accounts.disabled,
  numberOfUsers: accountColumns.numberOfUsers,
  shard: accounts.shard,
  replyToAddress: accounts.replyToAddress,
  senderDisplayName: accounts.senderDisplayName,
  attributes: accounts.attributes,
  createdByUserId: accounts.createdByUserId,
  createdDate: accounts.createdDate,
  lastModifiedByUserId: accounts.lastModifiedByUserId,
  lastModifiedDate: accounts.lastModifiedDate,
};
const allAccounts = compiled((db) => db.select(listedColumns).from(accounts).orderBy(asc(accounts.name)));
/** What an account's shape shows of its row: the members the list reads. */
type AccountShown = Pick<AccountRow, keyof typeof listedColumns>;
const listed = Object.fromEntries(Object.keys(listedColumns).map((key, i) => [key, i])) as Record<keyof typeof listedColumns, number>;

function listedAccount(values: unknown[]): AccountShown {
  const at = (key: keyof typeof listedColumns) => values[listed[key]];
  return {
    id: at("id") as string,
    name: at("name") as string,
    disabled: accounts.disabled.mapFromDriverValue(at("disabled") as number) as boolean,
    numberOfUsers: Number(at("numberOfUsers")),
    shard: at("shard") as string | null,
    replyToAddress: at("replyToAddress") as string | null,
    senderDisplayName: at("senderDisplayName") as string | null,
    attributes: accounts.attributes.mapFromDriverValue(at("attributes") as string) as AccountAttribute[],
    createdByUserId: at("createdByUserId") as string,
    createdDate: at("createdDate") as string,
    lastModifiedByUserId: at("lastModifiedByUserId") as string,
    lastModifiedDate: at("lastModifiedDate") as string,
  };
}

/**
 * The API's shape of an account row. Secured attribute values are write-only: they never leave the
 * service. What depends only on the request (the links' prefix, where the shards are) is looked up
 * once here, not again for each row of the list.
 */
function accountShape(c: Context<AppEnv>): (row: AccountShown) => ReturnType<typeof shaped> {
  const { contextPath, shards } = c.get("config");
  const route = c.get("shardRoute");
  // The directory's row names its shard (NULL: the directory's own database); a shard's copy names
  // none, so a request placed on the account says where it is.
  const shardNameOf = (row: AccountShown) => (route?.accountId === row.id && route.shardName ? route.shardName : shardOfRow(shards, row.shard));
  return (row) => shaped(row, shardNameOf(row), `${contextPath}/api/accounts/${encodeURIComponent(row.id)}`);
}

function shaped(row: AccountShown, shard: string, self: string) {
  return {
    id: row.id,
    name: row.name,
    disabled: row.disabled,
    numberOfUsers: row.numberOfUsers,
    shard,
    replyToAddress: row.replyToAddress ?? null,
    senderDisplayName: row.senderDisplayName ?? null,
    attributes: row.attributes.map((a) => (a.isSecured ? { key: a.key, isSecured: true } : a)),
    links: [{ rel: "self" as const, href: self }],
    ...auditOut(row),
  };
}

const toAccount = (c: Context<AppEnv>, row: AccountRow) => accountShape(c)(row);

/** An update's changes as shown (secured attribute values masked); a secured value that changed only says so. */
function accountChanges(c: Context<AppEnv>, before: AccountRow, after: AccountRow) {
  const changes = diffMembers(toAccount(c, before), toAccount(c, after), { ignore: ["numberOfUsers", "shard"] });
  if (!changes.some((ch) => ch.member === "attributes") && !sameAttributes(before.attributes, after.attributes)) changes.push(secretChanged("attributes"));
  return changes;
}

const sameAttributes = (a: AccountAttribute[], b: AccountAttribute[]) => JSON.stringify(a) === JSON.stringify(b);

async function findAccount(db: Database, id: string): Promise<AccountRow> {
  const row = await accountById(db).get({ id });
  if (!row) throw notFound("Account");
  return row;
}

const nameTaken = (name: string) => duplicated(`An account named '${name}' already exists`);

/** A secured attribute sent without a value keeps the value already stored under its key. */
function mergeAttributes(sent: AccountWrite["attributes"], stored: AccountAttribute[] = []): AccountAttribute[] {
  return sent.map((a) => ({
    key: a.key,
    value: a.value ?? (a.isSecured ? (stored.find((s) => s.key === a.key)?.value ?? "") : ""),
    isSecured: a.isSecured,
  }));
}

export const list: AppRouteHandler<typeof routes.list> = async (c) => {
  const rows = (await allAccounts(c.get("directory")).values()).map(listedAccount);
  // Over several databases, the users of the accounts that other shards hold are counted there.
  const elsewhere = await countPerShard(c, "SELECT account_id, count(*) AS n FROM users GROUP BY account_id");
  for (const row of rows) if (row.shard !== null) row.numberOfUsers = elsewhere.get(row.id) ?? 0;
  return c.json({ content: rows.map(accountShape(c)) }, 200);
};

/** The account a create body describes: its top-level members, or those inside the reference product's `account`. */
function accountToCreate(body: AccountCreate): AccountWrite {
  const { account, users: _none, ...topLevel } = body;
  if (account) {
    // The representation's read-only members are ignored wherever they are; only writable ones clash with `account`.
    const { id, name, replyToAddress, senderDisplayName, disabled, attributes } = topLevel;
    refuseBesideWrapper("account", { id, name, replyToAddress, senderDisplayName, disabled, attributes });
    return account;
  }
  if (topLevel.name === undefined) throw invalid("body.name", "Invalid input: expected string, received undefined");
  return { ...topLevel, name: topLevel.name, disabled: topLevel.disabled ?? false, attributes: topLevel.attributes ?? [] };
}

// An account's row, compiled once per isolate (the directory's names the shard; a shard's copy
// binds null); its built-in groups' rows are db/groups.ts's.
const insertAccount = compiled((db) =>
  db
    .insert(accounts)
    .values(placeholders("id", "revision", "name", "disabled", "replyToAddress", "senderDisplayName", "attributes", "shard", "createdByUserId", "createdDate", "lastModifiedByUserId", "lastModifiedDate")),
);

export const create: AppRouteHandler<typeof routes.create> = async (c) => {
  const body = accountToCreate(c.req.valid("json"));
  const audit = auditForCreate(c.get("principal"));
  const id = crypto.randomUUID();
  const values = {
    id,
    revision: newRevision(),
    name: body.name,
    disabled: body.disabled,
    replyToAddress: body.replyToAddress ?? null,
    senderDisplayName: body.senderDisplayName ?? null,
    attributes: mergeAttributes(body.attributes),
    ...audit,
  };
  const builtIn = [
    { id: crypto.randomUUID(), revision: newRevision(), accountId: id, name: "Administrators", description: "Administrators of the account", privileges: [...ADMINISTRATORS_PRIVILEGES], builtIn: true, ...audit },
    { id: crypto.randomUUID(), revision: newRevision(), accountId: id, name: "Users", description: "Every user of the account", privileges: [], builtIn: true, ...audit },
  ];
  c.get("audit").record(
    { accountId: id, action: "account.create", target: { type: "account", id, name: body.name } },
    ...builtIn.map((g) => ({ accountId: id, action: "group.create" as const, target: { type: "group" as const, id: g.id, name: g.name } })),
  );
  const shard = await placeNewAccount(c, id);
  try {
    // The directory's row names the shard; the shard's copy (the same row, on another database) does not.
    await writeAcross(c, {
      directory: (d) => [inBatch(insertAccount(d), { ...values, shard })],
      shard: (d) => [...(shardIsDirectory(c) ? [] : [inBatch(insertAccount(d), { ...values, shard: null })]), ...builtIn.map((g) => inBatch(insertGroup(d), g))],
      undo: (d) => [d.delete(accounts).where(eq(accounts.id, id))],
    });
  } catch (err) {
    if (isConstraintError(err, "UNIQUE")) throw nameTaken(body.name);
    throw err;
  }
  c.header("Location", locationOf(c, id));
  c.header("ETag", etagOf(values.revision));
  return c.json(toAccount(c, { ...values, isDefault: false, shard, moving: false, numberOfUsers: 0 }), 201);
};

export const getByName: AppRouteHandler<typeof routes.getByName> = async (c) => {
  const { name } = c.req.valid("param");
  await placeByAccountName(c, name);
  const row = await accountByName(c.get("db")).get({ name });
  if (!row) throw notFound("Account");
  c.header("ETag", etagOf(row.revision));
  return c.json(toAccount(c, row), 200);
};

export const getOne: AppRouteHandler<typeof routes.getOne> = async (c) => {
  const row = await findAccount(c.get("db"), c.req.valid("param").id);
  c.header("ETag", etagOf(row.revision));
  return c.json(toAccount(c, row), 200);
};

export const update: AppRouteHandler<typeof routes.update> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  assertSameId(body.id, id);
  const current = await findAccount(c.get("db"), id);
  checkIfMatch(c, current.revision);
  if (current.isDefault && body.disabled) {
    throw new ApiError("DEFAULT_ACCOUNT_PROTECTED", "The default account cannot be disabled");
  }
  const changes = {
    name: body.name,
    disabled: body.disabled,
    replyToAddress: body.replyToAddress ?? null,
    senderDisplayName: body.senderDisplayName ?? null,
    attributes: mergeAttributes(body.attributes, current.attributes),
    revision: newRevision(),
    ...auditForUpdate(c.get("principal")),
  };
  c.get("audit").recordIf(rowHasRevision("accounts", id, changes.revision), {
    accountId: id,
    action: "account.update",
    target: { type: "account", id, name: body.name },
    changes: accountChanges(c, current, { ...current, ...changes }),
  });
  const values = { ...changes, id, ifMatch: ifMatchValue(c, current.revision) };
  let updated;
  try {
    // With If-Match, a concurrent update makes this one miss (412); without it the last writer wins.
    // The directory's row first, then the shard's copy (one batch when they are one row).
    const written = await writeAcross(c, {
      directory: (d) => [inBatch(accountUpdate.guarded(d), values)],
      shard: (d) => [
        ...(shardIsDirectory(c) ? [] : [inBatch(accountUpdate.copy(d), values)]),
        // Disabling revokes its users' bearer tokens for good, if this update won (its revision is unique to it).
        ...(body.disabled ? [inBatch(accountUpdate.revokeTokensIfWon(d), values)] : []),
      ],
      undo: (d) => [d.update(accounts).set(revertOf(current)).where(and(eq(accounts.id, id), eq(accounts.revision, changes.revision)))],
    });
    updated = written.directory[0] as { id: string }[];
  } catch (err) {
    if (isConstraintError(err, "UNIQUE")) throw nameTaken(body.name);
    throw err;
  }
  if (updated.length === 0) throw new ApiError("PRECONDITION_FAILED", "The account was changed concurrently; reload it and retry");
  invalidateAccount(id);
  c.header("ETag", etagOf(changes.revision));
  return c.json(toAccount(c, { ...current, ...changes }), 200);
};

// An update's statements, compiled once per isolate (db/compiled.ts): Drizzle built their SQL on every
// request. `ifMatch` null: no If-Match, the last writer wins.
const ACCOUNT_UPDATE_MEMBERS = ["name", "disabled", "replyToAddress", "senderDisplayName", "attributes", "revision", "lastModifiedByUserId", "lastModifiedDate"] as const;
const accountUpdate = {
  guarded: compiled((db) =>
    db
      .update(accounts)
      .set(placeholders(...ACCOUNT_UPDATE_MEMBERS))
      .where(and(eq(accounts.id, sql.placeholder("id")), ifMatchPlaceholder(accounts.revision)))
      .returning({ id: accounts.id }),
  ),
  /** The shard's copy, written after the directory's row won. */
  copy: compiled((db) => db.update(accounts).set(placeholders(...ACCOUNT_UPDATE_MEMBERS)).where(eq(accounts.id, sql.placeholder("id")))),
  revokeTokensIfWon: compiled((db) =>
    revokeTokens(db, { accountId: sql.placeholder("id") }, sql`EXISTS (SELECT 1 FROM accounts WHERE id = ${sql.placeholder("id")} AND revision = ${sql.placeholder("revision")})`),
  ),
};

export const remove: AppRouteHandler<typeof routes.remove> = async (c) => {
  const { id } = c.req.valid("param");
  const db = c.get("db");
  const current = await db
    .select({ isDefault: accounts.isDefault, revision: accounts.revision, name: accounts.name })
    .from(accounts)
    .where(eq(accounts.id, id))
    .get();
  if (!current) throw notFound("Account");
  if (current.isDefault) throw new ApiError("DEFAULT_ACCOUNT_PROTECTED", "The default account cannot be deleted");
  checkIfMatch(c, current.revision);
  // The account's events stay (audit_events has no foreign key to it) until retention prunes them.
  c.get("audit").record({ accountId: id, action: "account.delete", target: { type: "account", id, name: current.name } });
  // The directory's entry goes first: from then on nobody reaches the shard's rows (one
  // batch, deleteAccountStatements alone, when the shard is the directory's database). The
  // connection types' lists name it in the directory and in every shard's copy of them.
  await writeAcross(c, {
    directory: (d) =>
      shardIsDirectory(c)
        ? []
        : [d.delete(accountMoves).where(eq(accountMoves.accountId, id)), d.delete(connectionTypeAccounts).where(eq(connectionTypeAccounts.accountId, id)), d.delete(accounts).where(eq(accounts.id, id))],
    shard: (d) => deleteAccountStatements(d, id),
    // Its users' names, once they are gone (on one database, deleteAccountStatements' own).
    after: (d) => (shardIsDirectory(c) ? [] : [releaseUserNamesOf(d, { accountId: id })]),
  });
  invalidateAccount(id);
  forgetPlacement(id);
  await deleteAccountFromTypeCopies(c, id);
  return c.body(null, 204);
};

/** The columns an update changes, as they were: the directory's part of an update whose shard part failed is put back. */
function revertOf(current: AccountRow) {
  const { name, disabled, replyToAddress, senderDisplayName, attributes, revision, lastModifiedByUserId, lastModifiedDate } = current;
  return { name, disabled, replyToAddress, senderDisplayName, attributes, revision, lastModifiedByUserId, lastModifiedDate };
}

/** JSON Merge Patch: the PUT applied to the object as read with the patch merged in (src/lib/merge-patch-route.ts). */
export const patch = mergePatchHandler({ read: getOne, put: routes.update, write: update }) as unknown as AppRouteHandler<typeof routes.patch>;
