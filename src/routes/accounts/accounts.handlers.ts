import { and, asc, eq, getTableColumns, sql } from "drizzle-orm";
import type { Context } from "hono";
import { rowHasRevision } from "../../db/audit-trail";
import { diffMembers, secretChanged } from "../../domain/audit/changes";
import { ADMINISTRATORS_PRIVILEGES } from "../../domain/privileges";
import { invalidateAccount } from "../../auth/cache";
import { revokeTokens } from "../../db/access-tokens";
import { deleteAccountStatements } from "../../db/account-owned";
import type { Database } from "../../db/client";
import { compiled } from "../../db/compiled";
import { accounts, groups, type AccountAttribute } from "../../db/schema";
import { refuseBesideWrapper } from "../../lib/aliases";
import { ApiError, duplicated, invalid, isConstraintError, notFound } from "../../lib/errors";
import { assertSameId, auditForCreate, auditForUpdate, auditOut, checkIfMatch, etagOf, ifMatchGuard, locationOf, newRevision } from "../../lib/http";
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

const accountById = compiled((db) => selectAccounts(db).where(eq(accounts.id, sql.placeholder("id"))));
const accountByName = compiled((db) => selectAccounts(db).where(eq(accounts.name, sql.placeholder("name"))));

/** Secured attribute values are write-only: they never leave the service. */
function toAccount(c: Context<AppEnv>, row: AccountRow) {
  return {
    id: row.id,
    name: row.name,
    disabled: row.disabled,
    numberOfUsers: row.numberOfUsers,
    replyToAddress: row.replyToAddress ?? null,
    senderDisplayName: row.senderDisplayName ?? null,
    attributes: row.attributes.map((a) => (a.isSecured ? { key: a.key, isSecured: true } : a)),
    links: [{ rel: "self" as const, href: `${c.get("config").contextPath}/api/accounts/${encodeURIComponent(row.id)}` }],
    ...auditOut(row),
  };
}

/** An update's changes as shown (secured attribute values masked); a secured value that changed only says so. */
function accountChanges(c: Context<AppEnv>, before: AccountRow, after: AccountRow) {
  const changes = diffMembers(toAccount(c, before), toAccount(c, after), { ignore: ["numberOfUsers"] });
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
  const rows = await selectAccounts(c.get("db")).orderBy(asc(accounts.name)).all();
  return c.json({ content: rows.map((row) => toAccount(c, row)) }, 200);
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

export const create: AppRouteHandler<typeof routes.create> = async (c) => {
  const body = accountToCreate(c.req.valid("json"));
  const db = c.get("db");
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
  try {
    await db.batch([
      db.insert(accounts).values(values),
      db.insert(groups).values(builtIn),
    ]);
  } catch (err) {
    if (isConstraintError(err, "UNIQUE")) throw nameTaken(body.name);
    throw err;
  }
  c.header("Location", locationOf(c, id));
  c.header("ETag", etagOf(values.revision));
  return c.json(toAccount(c, { ...values, isDefault: false, shard: null, moving: false, numberOfUsers: 0 }), 201);
};

export const getByName: AppRouteHandler<typeof routes.getByName> = async (c) => {
  const row = await accountByName(c.get("db")).get({ name: c.req.valid("param").name });
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
  const db = c.get("db");
  const current = await findAccount(db, id);
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
  let updated;
  try {
    // With If-Match, a concurrent update makes this one miss (412); without it the last writer wins.
    [updated] = await db.batch([
      db
        .update(accounts)
        .set(changes)
        .where(and(eq(accounts.id, id), ifMatchGuard(c, accounts.revision, current.revision)))
        .returning({ id: accounts.id }),
      // Disabling revokes its users' bearer tokens for good, if this update won (its revision is unique to it).
      ...(body.disabled
        ? [revokeTokens(db, { accountId: id }, sql`EXISTS (SELECT 1 FROM accounts WHERE id = ${id} AND revision = ${changes.revision})`)]
        : []),
    ]);
  } catch (err) {
    if (isConstraintError(err, "UNIQUE")) throw nameTaken(body.name);
    throw err;
  }
  if (updated.length === 0) throw new ApiError("PRECONDITION_FAILED", "The account was changed concurrently; reload it and retry");
  invalidateAccount(id);
  c.header("ETag", etagOf(changes.revision));
  return c.json(toAccount(c, { ...current, ...changes }), 200);
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
  await db.batch(deleteAccountStatements(db, id));
  invalidateAccount(id);
  return c.body(null, 204);
};

/** JSON Merge Patch: the PUT applied to the object as read with the patch merged in (src/lib/merge-patch-route.ts). */
export const patch = mergePatchHandler({ read: getOne, put: routes.update, write: update }) as unknown as AppRouteHandler<typeof routes.patch>;
