import type { Context } from "hono";
import { and, eq, sql, type Placeholder, type SQL } from "drizzle-orm";
import { invalidateUser } from "../../auth/cache";
import { clientStillTrusts, servedAmong, servedAsAuthenticated, type TrustedClient } from "../../auth/client";
import { insertToken, insertTokenWhere, mintToken, revokeToken, sweepExpiredTokens, tokenColumns, tokenKey, type MintedToken } from "../../db/access-tokens";
import { ROW_CHANGED } from "../../db/audit-trail";
import { refusedBy, refuseWhen, WRITE_CONFLICT_GUARD } from "../../db/batch-guards";
import type { Database } from "../../db/client";
import { compiled, compiledByKey, inBatch, placeholders } from "../../db/compiled";
import { accessTokens, accounts, userAttributes, userGroups, users } from "../../db/schema";
import { clientCheckedAfter, clientConfirmed, clientStub, clientStubIfMissing } from "../../db/shards/clients";
import { claimUserName, freeStaleUserName, releaseUserName, userNameHolder } from "../../db/shards/user-names";
import { writeAcross } from "../../db/shards/write-across";
import { shardOfRow } from "../../db/shards/config";
import { placeByUserName, placeRequest, rememberPlacement } from "../../db/shards/routing";
import { NO_PASSWORD } from "../../domain/passwords";
import { nowInSeconds, pullRefusal, pushRefusal, type GrantRefusal } from "../../domain/trusted-access";
import { isSupervisorName } from "../../domain/usernames";
import { ApiError, invalid, isConstraintError, notFound } from "../../lib/errors";
import { newRevision } from "../../lib/http";
import type { AppEnv } from "../../lib/types";
import type { AppRouteHandler } from "../../lib/create-router";
import { reverifyClient } from "../../middleware/authenticate/client";
import { requireGroupsNamed, selectGroupsNamed } from "../groups/groups.lookup";
import type * as routes from "./tokens.routes";
import type { PullRequest, PushRequest } from "./tokens.schemas";

/**
 * The token endpoints. Each reads what it needs, decides (domain/trusted-access.ts), then writes in
 * one batch whose statements only take effect if the client still trusts the request's secret, the
 * account is still enabled and the user still of it: a change in between (a rotated secret, a
 * disabled account, a user taken elsewhere) makes the write a "conflict", and the request is read
 * and decided once more.
 *
 * Over several databases (docs/sharding.md) the request is first placed on the shard of the user's
 * account (pull: the user's; push: the named account's, or the existing user's to refuse it). On a
 * shard other than the directory's database the batch cannot read the client's row: it checks the
 * client as it authenticated, writes the client's stub (db/shards/clients.ts), and the directory
 * confirms the client after the write; a token it does not confirm is deleted and the attempt is a
 * conflict. A push that loses that race may leave the user's changes, never a token.
 */
type Attempt = (client: TrustedClient) => Promise<MintedToken | "conflict">;

async function withOneRetry(c: Context<AppEnv>, attempt: Attempt): Promise<MintedToken> {
  const first = await attempt(c.get("client")!);
  if (first !== "conflict") return first;
  const second = await attempt(await reverifyClient(c));
  if (second !== "conflict") return second;
  throw new ApiError("INVALID_GRANT", "The user or its account kept changing while the token was issued; try again");
}

function refuseSupervisor(c: Context<AppEnv>, username: string): void {
  if (isSupervisorName(username, c.env.SUPERVISOR_USERNAME)) throw new ApiError("ACCESS_DENIED", "No token is issued for the supervisor");
}

function refusalError(refusal: GrantRefusal, request: { username: string; account?: string }): ApiError {
  switch (refusal) {
    case "account-not-served":
      return new ApiError("UNAUTHORIZED_CLIENT", `This client may not issue tokens in the account '${request.account}'`);
    case "no-such-account":
      return invalid("body.account", `No account is named '${request.account}'`);
    case "account-disabled":
      return new ApiError("ACCESS_DENIED", "The user's account is disabled: its users get no token");
    case "no-such-user":
      return new ApiError("INVALID_GRANT", `No user named '${request.username}'${request.account === undefined ? "" : ` in the account '${request.account}'`}`);
    case "user-of-another-account":
      return new ApiError("INVALID_GRANT", `The username '${request.username}' belongs to a user of another account`);
  }
}

/** A token for `username` (never the supervisor), as the arguments of the answer: RFC 6749 section 5.1, never cached. */
async function issue(c: Context<AppEnv>, username: string, place: () => Promise<void>, attempt: Attempt) {
  refuseSupervisor(c, username);
  await place();
  const token = await withOneRetry(c, attempt);
  const body = { access_token: token.accessToken, expires_in: token.expiresInSeconds, token_type: "bearer" as const, token_id: token.tokenId };
  return [body, 200, { "Cache-Control": "no-store", Pragma: "no-cache" }] as const;
}

const accountEnabled = (accountId: string | Placeholder) => sql`EXISTS (SELECT 1 FROM accounts WHERE id = ${accountId} AND disabled = 0)`;

/** The shard's stub of the client, before a push's token names it (db/shards/clients.ts); none where the batch runs on the directory's database. */
const stubIfNeeded = (c: Context<AppEnv>, db: Database, client: TrustedClient, nowMs: number) =>
  clientCheckedAfter(c) ? [clientStubIfMissing(db, client.clientId, new Date(nowMs).toISOString())] : [];

/**
 * After a token was written on a shard other than the directory's database: the directory confirms
 * the client, or the token is deleted (with its revocation's event) and the attempt is a conflict.
 */
async function confirmOrWithdraw(c: Context<AppEnv>, client: TrustedClient, token: MintedToken, owner: { accountId: string; username: string }, nowMs: number): Promise<MintedToken | "conflict"> {
  if (await clientConfirmed(c, client, owner.accountId, nowInSeconds(nowMs))) return token;
  c.get("audit").recordIf(ROW_CHANGED, { accountId: owner.accountId, action: "token.revoke", target: { type: "token", id: token.tokenId, name: owner.username } });
  const db = c.get("db");
  await db.delete(accessTokens).where(eq(accessTokens.tokenId, token.tokenId));
  return "conflict";
}

export const push: AppRouteHandler<typeof routes.push> = async (c) => {
  const body = c.req.valid("json");
  return c.json(...(await issue(c, body.username, () => placePush(c, body), (client) => pushOnce(c, client, body))));
};

/**
 * Over several databases: the push runs on the named account's shard. One directory read answers
 * the account and whose the user's name is (user_names): an unknown account, or a user of another
 * account, is refused here, before anything is written.
 */
async function placePush(c: Context<AppEnv>, body: PushRequest): Promise<void> {
  if (!c.get("shardRoute")) return;
  const row = await c
    .get("directory")
    .$client.prepare("SELECT a.id, a.disabled, a.shard, (SELECT account_id FROM user_names WHERE name = ?) AS user_account_id FROM (SELECT 1) LEFT JOIN accounts a ON a.name = ?")
    .bind(body.username, body.account)
    .first<{ id: string | null; disabled: number | null; shard: string | null; user_account_id: string | null }>();
  const account = row?.id ? { id: row.id, disabled: row.disabled === 1 } : null;
  const userAccountId = row?.user_account_id ?? undefined;
  if (!account || (userAccountId !== undefined && userAccountId !== account.id)) {
    const refusal = pushRefusal({
      servedAccountIds: c.get("client")!.accountIds,
      namedAccount: account,
      user: userAccountId === undefined ? null : { accountId: userAccountId, accountDisabled: false },
    });
    throw refusalError(refusal ?? "no-such-account", body);
  }
  // Placed from the row just read: no second read of the directory.
  rememberPlacement(account.id, shardOfRow(c.get("config").shards, row!.shard), c.get("config").credentialCacheTtlMs);
  await placeRequest(c, account.id);
}

const selectAccountNamed = (db: Database, name: string | Placeholder) => db.select({ id: accounts.id, disabled: accounts.disabled }).from(accounts).where(eq(accounts.name, name));

/*
 * A push's statements, compiled once per isolate (db/compiled.ts): Drizzle building their SQL was
 * 15-20 % of its CPU. Where their SQL differs (how the client is checked, a new or an existing user,
 * the profile members sent), one template each.
 */
const accountByName = compiled((db) => selectAccountNamed(db, sql.placeholder("name")));
const userByName = compiled((db) => db.select({ id: users.id, accountId: users.accountId }).from(users).where(eq(users.name, sql.placeholder("name"))));

/** How a push's batch checks the client (clientInBatch): its row, or as it authenticated, serving every account or those listed. */
type ClientCheck = "stillTrusts" | "servesEveryAccount" | "servesListed";
const clientCheckOf = (c: Context<AppEnv>, client: TrustedClient): ClientCheck =>
  !clientCheckedAfter(c) ? "stillTrusts" : client.accountIds === null ? "servesEveryAccount" : "servesListed";

const clientChecked = (check: ClientCheck, accountId: Placeholder | SQL): SQL => {
  switch (check) {
    case "stillTrusts":
      return clientStillTrusts({ clientId: sql.placeholder("clientId"), presentedDigest: sql.placeholder("presentedDigest") }, accountId, sql.placeholder("nowSeconds"));
    case "servesEveryAccount":
      return servedAsAuthenticated({ accountIds: null }, accountId);
    case "servesListed":
      return servedAmong(sql.placeholder("servedAccountIdsJson"), accountId);
  }
};

/** The values of clientChecked's placeholders. */
const clientCheckValues = (client: TrustedClient, nowMs: number) => ({
  clientId: client.clientId,
  presentedDigest: client.presentedDigest,
  servedAccountIdsJson: JSON.stringify(client.accountIds),
  nowSeconds: nowInSeconds(nowMs),
});

/** The push's guard: refuses the batch unless the client, the account and (an existing one) the user still allow it. */
const pushGuardOf = (check: ClientCheck, existingUser: boolean) =>
  compiled((db) => {
    const accountId = sql.placeholder("accountId");
    const trusted = and(
      clientChecked(check, accountId),
      accountEnabled(accountId),
      existingUser ? sql`EXISTS (SELECT 1 FROM users WHERE id = ${sql.placeholder("userId")} AND account_id = ${accountId})` : undefined,
    )!;
    return refuseWhen(db, WRITE_CONFLICT_GUARD, sql`NOT (${trusted})`, "trusted-access push");
  });
const pushGuardsChecking = (check: ClientCheck) => ({ newUser: pushGuardOf(check, false), existingUser: pushGuardOf(check, true) });
const pushGuard = {
  stillTrusts: pushGuardsChecking("stillTrusts"),
  servesEveryAccount: pushGuardsChecking("servesEveryAccount"),
  servesListed: pushGuardsChecking("servesListed"),
};

const unlinkGroups = compiled((db) => db.delete(userGroups).where(eq(userGroups.userId, sql.placeholder("userId"))));
const linkGroups = compiled((db) =>
  db.insert(userGroups).select(sql`SELECT ${sql.placeholder("userId")}, value, ${sql.placeholder("accountId")} FROM json_each(${sql.placeholder("groupIds")})`),
);
const deleteAttributes = compiled((db) => db.delete(userAttributes).where(eq(userAttributes.userId, sql.placeholder("userId"))));
const insertAttributes = compiled((db) =>
  db
    .insert(userAttributes)
    .select(
      sql`SELECT ${sql.placeholder("userId")}, ${sql.placeholder("accountId")}, json_extract(value, '$.key'), json_extract(value, '$.values') FROM json_each(${sql.placeholder("attributes")})`,
    ),
);

/** Read (one round trip), decide, then create or update the user, its groups and attributes, and the token (one batch). */
async function pushOnce(c: Context<AppEnv>, client: TrustedClient, body: PushRequest): Promise<MintedToken | "conflict"> {
  const db = c.get("db");
  const nowMs = Date.now();
  // A new user joins `Users` when the request names no groups.
  const groupNames = body.groups ?? ["Users"];
  const [accountRows, userRows, groupRows] = await db.batch([
    inBatch(accountByName(db), { name: body.account }),
    inBatch(userByName(db), { name: body.username }),
    selectGroupsNamed(db, { named: body.account }, groupNames),
  ]);
  const account = accountRows[0] ?? null;
  const existing = userRows[0] ?? null;
  const refusal = pushRefusal({
    servedAccountIds: client.accountIds,
    namedAccount: account,
    user: existing && { accountId: existing.accountId, accountDisabled: false },
  });
  if (refusal || !account) throw refusalError(refusal ?? "no-such-account", body);
  const groups = body.groups || !existing ? requireGroupsNamed(groupNames, groupRows) : undefined;

  const accountId = account.id;
  const userId = existing?.id ?? crypto.randomUUID();
  const token = await mintToken(client.accessTokenValiditySeconds, nowMs);
  const profileChanged = body.fullname !== undefined || body.email !== undefined || body.groups !== undefined || body.attributes !== undefined;
  c.get("audit").record(
    ...(existing === null
      ? [{ accountId, action: "user.create" as const, target: { type: "user" as const, id: userId, name: body.username } }]
      : profileChanged
        ? [{ accountId, action: "user.update" as const, target: { type: "user" as const, id: userId, name: body.username }, changes: pushedChanges(body) }]
        : []),
    { accountId, action: "token.issue", target: { type: "token", id: token.tokenId, name: body.username } },
  );
  try {
    // A new user's name is claimed in the directory first (db/shards/user-names.ts).
    await writeAcross(c, {
      directory: (d) => (existing ? [] : [claimUserName(d, { name: body.username, userId, accountId })]),
      shard: (d) => [
        inBatch(pushGuard[clientCheckOf(c, client)][existing ? "existingUser" : "newUser"](d), { ...clientCheckValues(client, nowMs), accountId, userId }),
        ...userWrites(d, { userId, accountId, existing: existing !== null, client, at: new Date(nowMs).toISOString() }, body),
        // Groups given replace the memberships (json_each: one bound parameter however many groups).
        ...(groups ? [inBatch(unlinkGroups(d), { userId }), inBatch(linkGroups(d), { userId, accountId, groupIds: JSON.stringify(groups.map((g) => g.id)) })] : []),
        ...(body.attributes ? [inBatch(deleteAttributes(d), { userId }), inBatch(insertAttributes(d), { userId, accountId, attributes: JSON.stringify(body.attributes) })] : []),
        ...stubIfNeeded(c, d, client, nowMs),
        insertToken(d, token, { userId, accountId, clientId: client.clientId }, nowMs),
        sweepExpiredTokens(d, nowMs),
      ],
      undo: (d) => (existing ? [] : [releaseUserName(d, body.username, userId)]),
    });
  } catch (err) {
    if (isConstraintError(err, "UNIQUE", "user_names.name")) return nameClaimedMeanwhile(c, body, accountId);
    // Refused by the guard; the name taken meanwhile; a group, account or user gone meanwhile.
    if (refusedBy(err, WRITE_CONFLICT_GUARD) || isConstraintError(err, "UNIQUE", "users.name") || isConstraintError(err, "FOREIGN KEY")) return "conflict";
    throw err;
  }
  // Its groups may have changed: this isolate's cached Basic sign-ins of the user go.
  if (existing) invalidateUser(userId);
  return confirmOrWithdraw(c, client, token, { accountId, username: body.username }, nowMs);
}

/**
 * A new user's name claimed meanwhile: by a stale claim (freed) or a user of this account (read
 * again, it is there now), a conflict and one more attempt; by a user of another account, refused.
 */
async function nameClaimedMeanwhile(c: Context<AppEnv>, body: PushRequest, accountId: string): Promise<"conflict"> {
  if (await freeStaleUserName(c, body.username)) return "conflict";
  const holder = await userNameHolder(c, body.username);
  if (holder !== undefined && holder !== accountId) throw refusalError("user-of-another-account", body);
  return "conflict";
}

/** What a push set on an existing user: the members it sent, with their new values (the user is not read in full first). */
function pushedChanges(body: PushRequest) {
  return [
    ...(body.fullname !== undefined ? [{ member: "fullName", after: body.fullname }] : []),
    ...(body.email !== undefined ? [{ member: "email", after: body.email }] : []),
    ...(body.groups !== undefined ? [{ member: "groups", after: body.groups }] : []),
    ...(body.attributes !== undefined ? [{ member: "attributes", after: body.attributes }] : []),
  ];
}

/**
 * The user's own row: a new user with the request's profile and no usable password, or the
 * existing one with the profile members the request gives (none given, no groups: no change).
 * The actor of the audit columns is the client.
 */
function userWrites(
  db: Database,
  target: { userId: string; accountId: string; existing: boolean; client: TrustedClient; at: string },
  body: PushRequest,
) {
  const actor = `client:${target.client.clientId}`;
  const audit = { lastModifiedByUserId: actor, lastModifiedDate: target.at };
  if (!target.existing) {
    return [
      inBatch(insertPushedUser(db), {
        ...audit,
        id: target.userId,
        revision: newRevision(),
        accountId: target.accountId,
        name: body.username,
        fullName: body.fullname ?? null,
        email: body.email ?? null,
        createdByUserId: actor,
        createdDate: target.at,
      }),
    ];
  }
  // Groups are part of the user's representation: changing them changes its revision (ETag) too.
  if (body.fullname === undefined && body.email === undefined && body.groups === undefined) return [];
  const update = updatePushedUser[body.fullname === undefined ? "keepingFullName" : "settingFullName"][body.email === undefined ? "keepingEmail" : "settingEmail"];
  return [inBatch(update(db), { ...audit, id: target.userId, revision: newRevision(), fullName: body.fullname, email: body.email })];
}

const insertPushedUser = compiled((db) =>
  db.insert(users).values({
    ...placeholders("id", "revision", "accountId", "name", "fullName", "email", "createdByUserId", "createdDate", "lastModifiedByUserId", "lastModifiedDate"),
    roles: [],
    // A pushed user signs in with tokens only, until an administrator gives it a password.
    passwordAlgorithm: NO_PASSWORD.algorithm,
    passwordIterations: NO_PASSWORD.iterations,
    passwordSalt: NO_PASSWORD.salt,
    passwordHash: NO_PASSWORD.hash,
  }),
);
/** An existing user's update: the profile members the push sends (one template per combination), a new revision, the audit of the update. */
const updatePushedUserSetting = (fullName: boolean, email: boolean) =>
  compiled((db) =>
    db
      .update(users)
      .set({
        ...(fullName ? placeholders("fullName") : {}),
        ...(email ? placeholders("email") : {}),
        ...placeholders("revision", "lastModifiedByUserId", "lastModifiedDate"),
      })
      .where(eq(users.id, sql.placeholder("id"))),
  );
const updatePushedUser = {
  keepingFullName: { keepingEmail: updatePushedUserSetting(false, false), settingEmail: updatePushedUserSetting(false, true) },
  settingFullName: { keepingEmail: updatePushedUserSetting(true, false), settingEmail: updatePushedUserSetting(true, true) },
};

export const pull: AppRouteHandler<typeof routes.pull> = async (c) => {
  const body = c.req.valid("json");
  return c.json(...(await issue(c, body.username, () => placeByUserName(c, body.username), (client) => pullOnce(c, client, body))));
};

/**
 * One round trip: the token, written only if the user exists (in the named account) and every rule
 * holds, with what explains a refusal. Over several databases, on the user's shard (an unknown name:
 * the directory's database, where no user has it); an account named there that this shard does not
 * hold is read from the directory, to explain the refusal.
 */
async function pullOnce(c: Context<AppEnv>, client: TrustedClient, body: PullRequest): Promise<MintedToken | "conflict"> {
  const db = c.get("db");
  const nowMs = Date.now();
  const token = await mintToken(client.accessTokenValiditySeconds, nowMs);
  // Written only if the token was: its account is the user's, read from the token row.
  c.get("audit").recordIf(
    { sql: "EXISTS (SELECT 1 FROM access_tokens WHERE token_id = ?)", params: [token.tokenId] },
    {
      accountId: { sql: "SELECT account_id FROM access_tokens WHERE token_id = ?", params: [token.tokenId] },
      action: "token.issue",
      target: { type: "token", id: token.tokenId, name: body.username },
    },
  );
  const shape: PullShape = { check: clientCheckOf(c, client), namesAccount: body.account !== undefined };
  const values = {
    ...tokenColumns(token, nowMs),
    ...clientCheckValues(client, nowMs),
    username: body.username,
    account: body.account,
    at: new Date(nowMs).toISOString(),
  };
  const stub = clientCheckedAfter(c) ? [inBatch(pullStub(db, shape), values)] : [];
  const results = await db.batch([
    ...stub,
    inBatch(pullToken(db, shape), values),
    inBatch(userWithAccountByName(db), { name: body.username }),
    inBatch(accountByName(db), { name: body.account ?? "" }),
    sweepExpiredTokens(db, nowMs),
  ] as unknown as Parameters<typeof db.batch>[0]);
  const [written, userRows, accountRows] = results.slice(stub.length) as [{ tokenId: string }[], { accountId: string; accountDisabled: boolean }[], { id: string; disabled: boolean }[]];
  if (written.length > 0) return confirmOrWithdraw(c, client, token, { accountId: userRows[0]!.accountId, username: body.username }, nowMs);
  const namedAccount = body.account === undefined ? undefined : (accountRows[0] ?? (await namedAccountInDirectory(c, body.account)));
  const refusal = pullRefusal({
    servedAccountIds: client.accountIds,
    namedAccount,
    user: userRows[0] ?? null,
  });
  if (refusal) throw refusalError(refusal, body);
  // Everything the request depends on looks right: the client must have changed since it authenticated.
  return "conflict";
}

/*
 * A pull's statements, compiled once per isolate as the push's are: one template per way the client
 * is checked (clientCheckOf) and whether the request names the account.
 */
type PullShape = { check: ClientCheck; namesAccount: boolean };
const pullShapeId = ({ check, namesAccount }: PullShape) => `${check} ${namesAccount}`;

/** The user `u` the token is for: of that name, its account enabled (and the one named), served by the client. */
const pullIssuable = ({ check, namesAccount }: PullShape): SQL =>
  and(
    sql`u.name = ${sql.placeholder("username")}`,
    sql`EXISTS (SELECT 1 FROM accounts a WHERE a.id = u.account_id AND a.disabled = 0${namesAccount ? sql` AND a.name = ${sql.placeholder("account")}` : sql``})`,
    clientChecked(check, sql`u.account_id`),
  )!;
const pullToken = compiledByKey((db, shape: PullShape) => insertTokenWhere(db, pullIssuable(shape)), pullShapeId);
/** On a shard other than the directory's database: the client's stub, if the token will be written. */
const pullStub = compiledByKey(
  (db, shape: PullShape) => clientStub(db, sql.placeholder("clientId"), sql.placeholder("at"), sql`EXISTS (SELECT 1 FROM users u WHERE ${pullIssuable(shape)})`),
  pullShapeId,
);
const userWithAccountByName = compiled((db) =>
  db
    .select({ accountId: users.accountId, accountDisabled: accounts.disabled })
    .from(users)
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(eq(users.name, sql.placeholder("name"))),
);

/** Over several databases, the account a pull names when the user's shard does not hold it (null: no such account). */
async function namedAccountInDirectory(c: Context<AppEnv>, name: string): Promise<{ id: string; disabled: boolean } | null> {
  if (!clientCheckedAfter(c)) return null;
  return (await selectAccountNamed(c.get("directory"), name).get()) ?? null;
}

export const revoke: AppRouteHandler<typeof routes.revoke> = async (c) => {
  const key = await tokenKey(c.req.valid("param").tokenId);
  // Written just before the delete, from the token it is about to delete: its id (also when named by the token itself) and account.
  const ofToken = (column: string) => ({ sql: `SELECT ${column} FROM access_tokens WHERE ${key.column} = ?`, params: [key.value] });
  c.get("audit").recordBeforeIf(
    { sql: `EXISTS (SELECT 1 FROM access_tokens WHERE ${key.column} = ?)`, params: [key.value] },
    { accountId: ofToken("account_id"), action: "token.revoke", target: { type: "token", id: ofToken("token_id"), name: null } },
  );
  const revoked = await revokeToken(c.get("db"), key);
  if (revoked.length === 0) throw notFound("Token");
  return c.body(null, 204);
};
