import { eq, sql, type Placeholder } from "drizzle-orm";
import { ROW_CHANGED } from "../../db/audit-trail";
import { diffMembers } from "../../domain/audit/changes";
import type { Database } from "../../db/client";
import { compiled, inBatch, placeholders } from "../../db/compiled";
import { consumptionOf } from "../../db/quota";
import { accounts, quotaLimits, quotas } from "../../db/schema";
import { inScope, placedForWrite, scopeOf } from "../../db/scope";
import { QUOTA_TYPES, type QuotaLine } from "../../domain/quota";
import { notFound } from "../../lib/errors";
import { auditForCreate, auditForUpdate, auditOut, checkIfMatch, etagOf, locationOf, newRevision } from "../../lib/http";
import type { AppRouteHandler } from "../../lib/create-router";
import type * as routes from "./quotas.routes";

/**
 * The quota with each line's live consumption, in one query (batchable). `quotas.account_id` is spelled out:
 * in a single-table select Drizzle renders ${quotas.accountId} as a bare "account_id", which the
 * subquery would resolve to l.account_id (every account's limits).
 */
function selectQuota(db: Database, accountId: string | Placeholder) {
  return db
    .select({
      accountId: quotas.accountId,
      revision: quotas.revision,
      createdByUserId: quotas.createdByUserId,
      createdDate: quotas.createdDate,
      lastModifiedByUserId: quotas.lastModifiedByUserId,
      lastModifiedDate: quotas.lastModifiedDate,
      lines: sql<string>`(SELECT json_group_array(json_object('type', l.type, 'limit', l.limit_value, 'consumption', ${consumptionOf(sql`l.type`, sql`l.account_id`)})) FROM quota_limits l WHERE l.account_id = quotas.account_id)`,
    })
    .from(quotas)
    .where(eq(quotas.accountId, accountId));
}

type QuotaRow = Awaited<ReturnType<ReturnType<typeof selectQuota>["get"]>>;

function toQuota(row: QuotaRow) {
  if (!row) throw notFound("Quota");
  const lines = (JSON.parse(row.lines) as QuotaLine[]).sort((a, b) => QUOTA_TYPES.indexOf(a.type) - QUOTA_TYPES.indexOf(b.type));
  return { revision: row.revision, body: { accountId: row.accountId, quotas: lines, ...auditOut(row) } };
}

// Its SQL is long and the read is hot (E17): built once per isolate (src/db/compiled.ts).
const quotaOfAccount = compiled((db) => selectQuota(db, sql.placeholder("accountId")));

async function mustReadQuota(db: Database, accountId: string) {
  return toQuota(await quotaOfAccount(db).get({ accountId }));
}

export const getOne: AppRouteHandler<typeof routes.getOne> = async (c) => {
  const { accountId } = c.req.valid("param");
  // An admin of another account learns nothing: same 404 as a missing quota.
  if (!inScope(scopeOf(c.get("principal")), accountId)) throw notFound("Quota");
  const quota = await mustReadQuota(c.get("db"), accountId);
  c.header("ETag", etagOf(quota.revision));
  return c.json(quota.body, 200);
};

export const refresh: AppRouteHandler<typeof routes.refresh> = async (c) => {
  // Consumption is always computed from live objects, so a refresh is a fresh read.
  const quota = await mustReadQuota(c.get("db"), c.req.valid("param").accountId);
  c.header("ETag", etagOf(quota.revision));
  return c.json(quota.body, 200);
};

export const upsert: AppRouteHandler<typeof routes.upsert> = async (c) => {
  const body = c.req.valid("json");
  // The supervisor names the account in the body: the request runs on that account's shard (db/shards/routing.ts).
  await placedForWrite(c, body.accountId);
  const db = c.get("db");
  const principal = c.get("principal");
  const existing = await accountWithQuota(db).get({ accountId: body.accountId });
  if (!existing) throw notFound("Account");
  if (existing.quotaRevision) checkIfMatch(c, existing.quotaRevision);
  const audit = auditForCreate(principal);
  const revision = newRevision();
  const byType = (limits: { type: string; limit: number }[]) => [...limits].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  c.get("audit").record({
    accountId: body.accountId,
    action: existing.quotaRevision ? "quota.update" : "quota.create",
    target: { type: "quota", id: body.accountId, name: null },
    changes: existing.quotaRevision ? diffMembers({ quotas: JSON.parse(existing.limits) }, { quotas: byType(body.quotas.map((q) => ({ type: q.type, limit: q.limit }))) }) : undefined,
  });
  // The batch's last statement reads the quota as the batch left it: no second round trip.
  const { accountId } = body;
  const limits = JSON.stringify(body.quotas.map((q) => ({ type: q.type, limit: q.limit })));
  const [, , , written] = await db.batch([
    inBatch(upsertQuota(db), { accountId, revision, ...audit, updatedDate: auditForUpdate(principal).lastModifiedDate }),
    inBatch(deleteLimits(db), { accountId }),
    inBatch(insertLimits(db), { accountId, limits }),
    inBatch(quotaOfAccount(db), { accountId }),
  ]);
  const quota = toQuota(written[0]);
  c.header("ETag", etagOf(quota.revision));
  if (existing.quotaRevision) return c.json(quota.body, 200);
  c.header("Location", locationOf(c, body.accountId));
  return c.json(quota.body, 201);
};

// The statements of PUT /api/quota and DELETE /api/quota/{accountId}, compiled once per isolate (db/compiled.ts).
const accountWithQuota = compiled((db) =>
  db
    .select({
      id: accounts.id,
      quotaRevision: quotas.revision,
      // The limits being replaced, for the audit event's changes (same query: no round trip of its own).
      limits: sql<string>`(SELECT json_group_array(json_object('type', type, 'limit', limit_value)) FROM (SELECT type, limit_value FROM quota_limits WHERE account_id = ${accounts.id} ORDER BY type))`,
    })
    .from(accounts)
    .leftJoin(quotas, eq(quotas.accountId, accounts.id))
    .where(eq(accounts.id, sql.placeholder("accountId"))),
);
const upsertQuota = compiled((db) =>
  db
    .insert(quotas)
    .values(placeholders("accountId", "revision", "createdByUserId", "createdDate", "lastModifiedByUserId", "lastModifiedDate"))
    .onConflictDoUpdate({
      target: quotas.accountId,
      // An update's own time (the insert's audit names the same user).
      set: { revision: sql.placeholder("revision"), lastModifiedByUserId: sql.placeholder("lastModifiedByUserId"), lastModifiedDate: sql.placeholder("updatedDate") } as never,
    }),
);
const deleteLimits = compiled((db) => db.delete(quotaLimits).where(eq(quotaLimits.accountId, sql.placeholder("accountId"))));
// Every line in one statement, its list one JSON value (the SQL text never depends on its length).
const insertLimits = compiled((db) =>
  db
    .insert(quotaLimits)
    .select(sql`SELECT ${sql.placeholder("accountId")}, json_extract(value, '$.type'), json_extract(value, '$.limit') FROM json_each(${sql.placeholder("limits")})`),
);
const quotaRevision = compiled((db) => db.select({ revision: quotas.revision }).from(quotas).where(eq(quotas.accountId, sql.placeholder("accountId"))));
const deleteQuota = compiled((db) => db.delete(quotas).where(eq(quotas.accountId, sql.placeholder("accountId"))));

export const remove: AppRouteHandler<typeof routes.remove> = async (c) => {
  const { accountId } = c.req.valid("param");
  const db = c.get("db");
  const current = await quotaRevision(db).get({ accountId });
  if (!current) throw notFound("Quota");
  checkIfMatch(c, current.revision);
  c.get("audit").recordIf(ROW_CHANGED, { accountId, action: "quota.delete", target: { type: "quota", id: accountId, name: null } });
  await db.batch([inBatch(deleteLimits(db), { accountId }), inBatch(deleteQuota(db), { accountId })]);
  return c.body(null, 204);
};
