import { rowGone, rowHasRevision } from "../../db/audit-trail";
import { diffMembers, secretChanged } from "../../domain/audit/changes";
import { and, asc, eq, notExists, sql, type Placeholder } from "drizzle-orm";
import { revokeTokens } from "../../db/access-tokens";
import { revokeClientTokensElsewhere, stubClientOnEveryShard } from "../../db/shards/clients";
import type { Database } from "../../db/client";
import { boundAsGiven, compiled, compiledByKey, ifMatchPlaceholder, inBatch, placeholders } from "../../db/compiled";
import { accounts, trustedAccessClients } from "../../db/schema";
import { digestOf, nowInSeconds, randomSecret, TOKEN_ENDPOINT_AUTH_METHOD } from "../../domain/trusted-access";
import { ApiError, duplicated, isConstraintError, notFound, type Problem } from "../../lib/errors";
import { auditForCreate, auditForUpdate, checkIfMatch, etagOf, locationOf, newRevision, ifMatchValue } from "../../lib/http";
import type { AppRouteHandler } from "../../lib/create-router";
import type * as routes from "./clients.routes";

type ClientRow = typeof trustedAccessClients.$inferSelect;

/*
 * Clients live in the directory (docs/sharding.md): every statement here runs on the directory's
 * handle, and their events (account_id null) ride on its batches. The tokens they issued live on
 * their users' shards: a deletion, a rotation with revoke_tokens or a narrowing revokes them in the
 * directory's batch (the directory's own database), then on every other shard once that batch
 * committed; each shard keeps a stub of every client, written after its creation (db/shards/clients.ts).
 * On one database, the batch alone.
 */

/** The client as the API shows it. The secret is a member only of the answer that issues it. */
function toClient(row: Pick<ClientRow, keyof typeof shownColumns>, issuedSecret?: string) {
  return {
    client_name: row.clientName,
    access_token_validity_seconds: row.accessTokenValiditySeconds,
    client_id: row.clientId,
    ...(issuedSecret === undefined ? {} : { client_secret: issuedSecret }),
    client_secret_expires_at: row.clientSecretExpiresAt,
    token_endpoint_auth_method: TOKEN_ENDPOINT_AUTH_METHOD,
    client_id_issued_at: nowInSeconds(Date.parse(row.createdDate)),
    account_ids: row.accountIds ?? null,
    previous_client_secret_expires_at: row.previousSecretExpiresAt ?? null,
  } as const;
}

const selectClient = (db: Database, clientId: string | Placeholder) => db.select().from(trustedAccessClients).where(eq(trustedAccessClients.clientId, clientId));

// Compiled once per isolate (db/compiled.ts): a client's GET reads it on every request.
const clientById = compiled((db) => selectClient(db, sql.placeholder("clientId")));

async function findClient(db: Database, clientId: string): Promise<ClientRow> {
  const row = await clientById(db).get({ clientId });
  if (!row) throw notFound("Client");
  return row;
}

const nameTaken = (name: string) => duplicated(`A client named '${name}' already exists`, 409, "body.client_name");

/** The accounts a restriction names that exist (`idsJson`: the ids as a JSON array): batchable with the write's first read. */
const selectAccountsAmong = (db: Database, idsJson: string | Placeholder) =>
  db
    .select({ id: accounts.id })
    .from(accounts)
    // json_each: one bound parameter however many ids (D1 allows 100 per statement).
    .where(sql`${accounts.id} IN (SELECT value FROM json_each(${idsJson}))`);

// Compiled once per isolate (db/compiled.ts): a creation reads it on every request.
const accountsAmong = compiled((db) => selectAccountsAmong(db, sql.placeholder("idsJson")));

/** The restriction as stored (duplicates dropped), or a 400 naming each id that is no account. */
function requireAccounts(ids: readonly string[], found: readonly { id: string }[]): string[] {
  const known = new Set(found.map((a) => a.id));
  const problems: Problem[] = ids.flatMap((id, i) => (known.has(id) ? [] : [{ name: `body.account_ids[${i}]`, message: "No such account", level: "ERROR" as const }]));
  if (problems.length > 0) throw new ApiError("VALIDATION_FAILED", "account_ids names accounts that do not exist", { problems });
  return [...new Set(ids)];
}

/** A write that found nothing to change: lost to a concurrent writer (with If-Match), or the client is gone. */
function missedWrite(c: { req: { header(name: string): string | undefined } }): ApiError {
  return c.req.header("If-Match")
    ? new ApiError("PRECONDITION_FAILED", "The client was changed concurrently; reload it and retry")
    : notFound("Client");
}

/** Later statements of a batch run only if its update of the client won (its new revision is unique to it). */
const updateWon = (clientId: string | Placeholder, revision: string | Placeholder) =>
  sql`EXISTS (SELECT 1 FROM trusted_access_clients WHERE client_id = ${clientId} AND revision = ${revision})`;

/**
 * The list reads only the columns a client's shape shows (never its secrets' digests): it holds
 * every client of the deployment (about 300 in a full bench run), and each column read is one more
 * value for D1 to send and the row mapper (db/row-mapping.ts) to decode per client (docs/performance.md,
 * "The list of 300 clients"). Compiled once per isolate (db/compiled.ts).
 */
const shownColumns = {
  clientName: trustedAccessClients.clientName,
  accessTokenValiditySeconds: trustedAccessClients.accessTokenValiditySeconds,
  clientId: trustedAccessClients.clientId,
  clientSecretExpiresAt: trustedAccessClients.clientSecretExpiresAt,
  createdDate: trustedAccessClients.createdDate,
  accountIds: trustedAccessClients.accountIds,
  previousSecretExpiresAt: trustedAccessClients.previousSecretExpiresAt,
};
const allClients = compiled((db) => db.select(shownColumns).from(trustedAccessClients).orderBy(asc(trustedAccessClients.clientName)));

export const list: AppRouteHandler<typeof routes.list> = async (c) => {
  const rows = await allClients(c.get("directory")).all();
  return c.json({ content: rows.map((row) => toClient(row)) }, 200);
};

export const create: AppRouteHandler<typeof routes.create> = async (c) => {
  const body = c.req.valid("json");
  const db = c.get("directory");
  // A restriction to accounts that do not exist is a mistake to report. (An account deleted after
  // this check leaves an id that never matches again: account ids are never reused.)
  const accountIds = body.account_ids ? requireAccounts(body.account_ids, await accountsAmong(db).all({ idsJson: JSON.stringify(body.account_ids) })) : null;
  const secret = randomSecret();
  const values = {
    clientId: crypto.randomUUID(),
    clientName: body.client_name,
    accessTokenValiditySeconds: body.access_token_validity_seconds,
    secretDigest: await digestOf(secret),
    clientSecretExpiresAt: body.client_secret_expires_at,
    previousSecretDigest: null,
    previousSecretExpiresAt: null,
    accountIds,
    revision: newRevision(),
    ...auditForCreate(c.get("principal")),
  };
  c.get("audit").record({ accountId: null, action: "trusted-access-client.create", target: clientTarget(values) });
  try {
    await insertClient(db).run({ ...values, accountIdsJson: accountIds && JSON.stringify(accountIds) });
  } catch (err) {
    if (isConstraintError(err, "UNIQUE")) throw nameTaken(body.client_name);
    throw err;
  }
  await stubClientOnEveryShard(c, values.clientId, values.createdDate);
  c.header("Location", locationOf(c, values.clientId));
  c.header("ETag", etagOf(values.revision));
  return c.json(toClient(values, secret), 201);
};

// Compiled once per isolate (db/compiled.ts): Drizzle building its SQL was 15-20 % of a creation's CPU.
const insertClient = compiled((db) =>
  db.insert(trustedAccessClients).values({
    ...placeholders("clientId", "clientName", "accessTokenValiditySeconds", "secretDigest", "clientSecretExpiresAt", "previousSecretDigest", "previousSecretExpiresAt"),
    ...placeholders("revision", "createdByUserId", "createdDate", "lastModifiedByUserId", "lastModifiedDate"),
    accountIds: boundAsGiven("accountIdsJson"),
  }),
);

const clientTarget = (row: { clientId: string; clientName: string }) => ({ type: "trusted-access-client" as const, id: row.clientId, name: row.clientName });

export const getOne: AppRouteHandler<typeof routes.getOne> = async (c) => {
  const row = await findClient(c.get("directory"), c.req.valid("param").id);
  c.header("ETag", etagOf(row.revision));
  return c.json(toClient(row), 200);
};

export const update: AppRouteHandler<typeof routes.update> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  const db = c.get("directory");
  // One round trip reads the client and the accounts a new restriction names.
  const [found, namedAccounts] = await db.batch([inBatch(clientById(db), { clientId: id }), inBatch(accountsAmong(db), { idsJson: JSON.stringify(body.account_ids ?? []) })]);
  const current = found[0];
  if (!current) throw notFound("Client");
  checkIfMatch(c, current.revision);
  const accountIds = body.account_ids ? requireAccounts(body.account_ids, namedAccounts) : body.account_ids;
  const changes = {
    ...(body.client_name !== undefined && { clientName: body.client_name }),
    ...(body.access_token_validity_seconds !== undefined && { accessTokenValiditySeconds: body.access_token_validity_seconds }),
    ...(body.client_secret_expires_at !== undefined && { clientSecretExpiresAt: body.client_secret_expires_at }),
    ...(accountIds !== undefined && { accountIds }),
    revision: newRevision(),
    ...auditForUpdate(c.get("principal")),
  };
  c.get("audit").recordIf(rowHasRevision("trusted_access_clients", id, changes.revision, "client_id"), {
    accountId: null,
    action: "trusted-access-client.update",
    target: clientTarget({ ...current, ...changes }),
    changes: diffMembers(toClient(current), toClient({ ...current, ...changes })),
  });
  const values = {
    ...changes,
    accountIdsJson: accountIds && JSON.stringify(accountIds),
    clientId: id,
    ifMatch: ifMatchValue(c, current.revision),
  };
  let results;
  try {
    results = await db.batch([
      inBatch(clientUpdate(db, Object.keys(changes) as (keyof typeof changes)[]), values),
      // Narrowed to some accounts: the tokens it issued elsewhere stop working now.
      ...(accountIds ? [inBatch(revokeTokensOutsideIfUpdateWon(db), values)] : []),
    ]);
  } catch (err) {
    if (isConstraintError(err, "UNIQUE") && body.client_name !== undefined) throw nameTaken(body.client_name);
    throw err;
  }
  const updated = results[0][0];
  if (!updated) throw missedWrite(c);
  if (accountIds) await revokeClientTokensElsewhere(c, id, { outsideAccounts: accountIds });
  c.header("ETag", etagOf(updated.revision));
  return c.json(toClient(updated), 200);
};

/*
 * An update's statements, compiled once per isolate (db/compiled.ts): Drizzle building their SQL was
 * 15-20 % of its CPU. One template per set of members the update changes, made when first needed.
 * `ifMatch` null: no If-Match, the last writer wins.
 */
type ClientUpdateMember = "clientName" | "accessTokenValiditySeconds" | "clientSecretExpiresAt" | "accountIds" | "revision" | "lastModifiedByUserId" | "lastModifiedDate";
const clientUpdate = compiledByKey(
  (db, members: ClientUpdateMember[]) =>
    db
      .update(trustedAccessClients)
      .set({
        ...placeholders(...members.filter((member) => member !== "accountIds")),
        ...(members.includes("accountIds") && { accountIds: boundAsGiven("accountIdsJson") }),
      })
      .where(and(eq(trustedAccessClients.clientId, sql.placeholder("clientId")), ifMatchPlaceholder(trustedAccessClients.revision)))
      .returning(),
  (members) => members.join(),
);
const revokeTokensOutsideIfUpdateWon = compiled((db) =>
  revokeTokens(db, { clientId: sql.placeholder("clientId"), outsideAccounts: sql.placeholder("accountIdsJson") }, updateWon(sql.placeholder("clientId"), sql.placeholder("revision"))),
);

export const remove: AppRouteHandler<typeof routes.remove> = async (c) => {
  const { id } = c.req.valid("param");
  const db = c.get("directory");
  const current = await clientById(db).get({ clientId: id });
  if (!current) {
    // A deletion that failed after its directory's batch (before every shard revoked) is retried: the stubs and tokens left go now.
    await revokeClientTokensElsewhere(c, id, { deleteStub: true });
    throw notFound("Client");
  }
  checkIfMatch(c, current.revision);
  c.get("audit").recordIf(rowGone("trusted_access_clients", id, "client_id"), { accountId: null, action: "trusted-access-client.delete", target: clientTarget(current) });
  const values = { clientId: id, ifMatch: ifMatchValue(c, current.revision) };
  const [deleted] = await db.batch([inBatch(deleteClient(db), values), inBatch(revokeTokensIfDeleted(db), values)]);
  if (deleted.length === 0) throw missedWrite(c);
  await revokeClientTokensElsewhere(c, id, { deleteStub: true });
  return c.body(null, 204);
};

// A deletion's statements, compiled once per isolate (db/compiled.ts): Drizzle building their SQL was
// 11 % of its CPU. `ifMatch` null: no If-Match, the last writer wins.
const deleteClient = compiled((db) =>
  db
    .delete(trustedAccessClients)
    .where(and(eq(trustedAccessClients.clientId, sql.placeholder("clientId")), ifMatchPlaceholder(trustedAccessClients.revision)))
    .returning({ clientId: trustedAccessClients.clientId }),
);
// Its tokens go with it (the foreign key cascades too): the next bearer request with one is refused.
const revokeTokensIfDeleted = compiled((db) => revokeTokens(db, { clientId: sql.placeholder("clientId") }, notExists(selectClient(db, sql.placeholder("clientId")))));

export const rotateSecret: AppRouteHandler<typeof routes.rotateSecret> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  const db = c.get("directory");
  const current = await findClient(db, id);
  checkIfMatch(c, current.revision);
  const secret = randomSecret();
  const changes = {
    secretDigest: await digestOf(secret),
    clientSecretExpiresAt: body.client_secret_expires_at,
    revision: newRevision(),
    ...auditForUpdate(c.get("principal")),
  };
  const values = { ...changes, clientId: id, ifMatch: ifMatchValue(c, current.revision), graceEnd: nowInSeconds() + body.grace_period_seconds };
  c.get("audit").recordIf(rowHasRevision("trusted_access_clients", id, changes.revision, "client_id"), {
    accountId: null,
    action: "client.rotate-secret",
    target: clientTarget(current),
    changes: [secretChanged("client_secret"), ...diffMembers({ client_secret_expires_at: current.clientSecretExpiresAt }, { client_secret_expires_at: body.client_secret_expires_at })],
  });
  const [rotated] = await db.batch([
    inBatch(rotation[body.grace_period_seconds > 0 ? "withGrace" : "withoutGrace"](db), values),
    ...(body.revoke_tokens ? [inBatch(revokeTokensIfRotationWon(db), values)] : []),
  ]);
  const row = rotated[0];
  if (!row) throw missedWrite(c);
  if (body.revoke_tokens) await revokeClientTokensElsewhere(c, id, {});
  c.header("ETag", etagOf(row.revision));
  return c.json(toClient(row, secret), 200);
};

// A rotation's statements, compiled once per isolate (db/compiled.ts): Drizzle building their SQL was
// 15-20 % of its CPU. `ifMatch` null: no If-Match, the last writer wins.
const rotationOf = (withGrace: boolean) =>
  compiled((db) =>
    db
      .update(trustedAccessClients)
      .set({
        ...placeholders("secretDigest", "clientSecretExpiresAt", "revision", "lastModifiedByUserId", "lastModifiedDate"),
        // The replaced secret keeps working until graceEnd, never past its own expiry. Both are read by
        // the database from the row as the update finds it, so of two rotations at once, the later one
        // keeps the secret the earlier one issued.
        ...(withGrace
          ? {
              previousSecretDigest: sql`secret_digest`,
              previousSecretExpiresAt: sql`CASE WHEN client_secret_expires_at = 0 OR client_secret_expires_at > ${sql.placeholder("graceEnd")} THEN ${sql.placeholder("graceEnd")} ELSE client_secret_expires_at END`,
            }
          : { previousSecretDigest: null, previousSecretExpiresAt: null }),
      })
      .where(and(eq(trustedAccessClients.clientId, sql.placeholder("clientId")), ifMatchPlaceholder(trustedAccessClients.revision)))
      .returning(),
  );
const rotation = { withGrace: rotationOf(true), withoutGrace: rotationOf(false) };
const revokeTokensIfRotationWon = compiled((db) =>
  revokeTokens(db, { clientId: sql.placeholder("clientId") }, updateWon(sql.placeholder("clientId"), sql.placeholder("revision"))),
);
