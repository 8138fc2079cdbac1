import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, inject, it } from "vitest";
import worker from "../../../src/index";
import { WEBHOOK_SWEEP_CRON } from "../../../src/webhooks/cron";
import { as, buildRequest, call, createAccount, createUser, DEFAULT_ACCOUNT_ID, expectError, unique, waitFor, type TestUser, shardNameOf } from "../helpers";
import { bearerFor, createClient, roundTrips } from "../trusted-access-helpers";

/**
 * What runs outside a request's own database, over a directory (DB, also the first shard) and
 * SHARD_2 (docs/sharding.md): webhook delivery through the real local Queue and the cron's sweep,
 * the audit retention cron, bearer tokens of a SHARD_2 user, and the supervisor's rows outside any
 * account, which live in the directory.
 */
const RECEIVER = inject("connectorServers").webhookReceiverUrl;

const shardOf = shardNameOf;

/** An account on SHARD_2 (new accounts go to the shard with the fewest: at most a few tries). */
async function accountOnShard2() {
  for (let i = 0; i < 4; i++) {
    const account = await createAccount();
    if ((await shardOf(account.id)) === "SHARD_2") return account;
  }
  throw new Error("no account landed on SHARD_2");
}

const count = async (database: D1Database, query: string, ...params: unknown[]) => (await database.prepare(query).bind(...params).first<{ n: number }>())!.n;

type Received = { headers: Record<string, string>; body: string; answered: number | null };
const received = async (name: string): Promise<Received[]> => (await fetch(`${RECEIVER}/received/${name}`)).json();


async function subscribe(who: ReturnType<typeof as> | undefined, events: string[]) {
  const name = unique("hook");
  const res = await call("POST", "/api/webhooks", { as: who, body: { url: `${RECEIVER}/hooks/${name}`, events } });
  expect(res.status, res.text).toBe(201);
  return { name, id: res.json.id as string };
}

/** The ids of the events a request wrote on a database. */
const eventIdsOn = async (database: D1Database, res: { headers: Headers }) =>
  (await database.prepare("SELECT id FROM audit_events WHERE request_id = ? ORDER BY id").bind(res.headers.get("X-Request-Id")).all<{ id: string }>()).results.map((r) => r.id);

/** A write of the user's whose request has no Queue binding: it commits, and no message ever carries its events (an isolate that died first). */
async function groupWithoutMessage(user: TestUser) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(buildRequest("POST", "/api/groups", { as: as(user), body: { name: unique("g"), privileges: [] } }) as never, { ...env, WEBHOOK_QUEUE: undefined } as never, ctx);
  await waitOnExecutionContext(ctx);
  expect(res.status).toBe(201);
  return res;
}

const sweep = () => worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: WEBHOOK_SWEEP_CRON }), env as never);

let account: { id: string; name: string };
let admin: TestUser;

beforeAll(async () => {
  account = await accountOnShard2();
  admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
});

describe("webhooks of an account on SHARD_2", () => {
  it("a subscription receives its account's event through the Queue; the subscription, delivery and dispatch mark are on SHARD_2 only", async () => {
    const hook = await subscribe(as(admin), ["group.create"]);
    expect(await count(env.SHARD_2, "SELECT count(*) AS n FROM webhooks WHERE id = ?", hook.id)).toBe(1);
    expect(await count(env.DB, "SELECT count(*) AS n FROM webhooks WHERE id = ?", hook.id)).toBe(0);

    const res = await call("POST", "/api/groups", { as: as(admin), body: { name: unique("g"), privileges: [] } });
    expect(res.status, res.text).toBe(201);
    const [eventId] = await eventIdsOn(env.SHARD_2, res);
    expect(eventId).toBeDefined();
    expect(await eventIdsOn(env.DB, res)).toEqual([]);

    const got = await waitFor("the event at the receiver", async () => ((await received(hook.name)).length > 0 ? received(hook.name) : undefined));
    expect(got.map((r) => r.headers["webhook-id"])).toEqual([eventId]);
    expect(JSON.parse(got[0]!.body)).toMatchObject({ type: "group.create", data: { id: eventId, accountId: account.id } });

    const delivered = await waitFor("the delivery DELIVERED", async () =>
      (await count(env.SHARD_2, "SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ? AND outcome = 'DELIVERED'", hook.id)) === 1 ? true : undefined,
    );
    expect(delivered).toBe(true);
    expect(await count(env.DB, "SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?", hook.id)).toBe(0);
    expect(await count(env.SHARD_2, "SELECT count(*) AS n FROM webhook_dispatched WHERE event_id = ?", eventId)).toBe(1);
    const deliveries = await call("GET", `/api/webhooks/${hook.id}/deliveries`, { as: as(admin) });
    expect(deliveries.json.content).toEqual([expect.objectContaining({ eventId, outcome: "DELIVERED", attempts: 1 })]);
  }, 30_000);

  it("the cron's sweep carries an event of SHARD_2 that no message carried, and keeps a watermark on each database", async () => {
    const hook = await subscribe(as(admin), ["group.create"]);
    const res = await groupWithoutMessage(admin);
    const [eventId] = await eventIdsOn(env.SHARD_2, res);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await received(hook.name)).toEqual([]);

    await sweep();
    const got = await waitFor("the swept event", async () => ((await received(hook.name)).length > 0 ? received(hook.name) : undefined));
    expect(got.map((r) => r.headers["webhook-id"])).toEqual([eventId]);
    for (const database of [env.DB, env.SHARD_2]) expect(await count(database, "SELECT count(*) AS n FROM webhook_sweep")).toBe(1);
  }, 30_000);

  it("a message naming no database (as sent before the service was spread) is found on SHARD_2", async () => {
    const hook = await subscribe(as(admin), ["group.create"]);
    const res = await groupWithoutMessage(admin);
    const [eventId] = await eventIdsOn(env.SHARD_2, res);
    await env.WEBHOOK_QUEUE.send({ events: [eventId] });
    const got = await waitFor("the event", async () => ((await received(hook.name)).length > 0 ? received(hook.name) : undefined));
    expect(got.map((r) => r.headers["webhook-id"])).toEqual([eventId]);
  }, 30_000);
});

describe("the audit retention cron", () => {
  it("prunes the events past AUDIT_RETENTION_DAYS on every database, and keeps the others", async () => {
    // Time-sortable ids: these sort before any of the last 365 days.
    const old = ["00000000020000000000000000", "00000000030000000000000000"];
    const insert = "INSERT INTO audit_events (id, time, account_id, actor_type, actor_name, actor_authentication, action, target_type, request_id) VALUES (?, '1970-01-01T00:00:00Z', ?, 'SUPERVISOR', 's', 'BASIC', 'group.create', 'group', 'r')";
    await env.DB.prepare(insert).bind(old[0], null).run();
    await env.SHARD_2.prepare(insert).bind(old[1], account.id).run();
    const recent = await call("POST", "/api/groups", { as: as(admin), body: { name: unique("kept"), privileges: [] } });
    const [kept] = await eventIdsOn(env.SHARD_2, recent);

    await worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: "17 * * * *" }), env as never);
    for (const database of [env.DB, env.SHARD_2]) expect(await count(database, "SELECT count(*) AS n FROM audit_events WHERE id IN (?, ?)", ...old)).toBe(0);
    expect(await count(env.SHARD_2, "SELECT count(*) AS n FROM audit_events WHERE id = ?", kept)).toBe(1);
  });
});

describe("bearer tokens of a SHARD_2 user", () => {
  it("work cold and warm, and are refused after revocation", async () => {
    const client = await createClient();
    const user = await createUser(account.id, { groups: ["Users", "Administrators"] });
    const { bearer, tokenId } = await bearerFor(client, user.username);
    // The token lives with its user on SHARD_2, beside the stub of its client (the client itself is in the directory).
    expect(await count(env.SHARD_2, "SELECT count(*) AS n FROM access_tokens WHERE token_id = ?", tokenId)).toBe(1);
    expect(await count(env.DB, "SELECT count(*) AS n FROM access_tokens WHERE token_id = ?", tokenId)).toBe(0);
    expect(await env.SHARD_2.prepare("SELECT secret_digest FROM trusted_access_clients WHERE client_id = ?").bind(client.clientId).first("secret_digest")).toBe("-");

    // Cold: every shard asked which holds the token, then its verification and the read.
    const cold = await call("GET", "/api/users", { as: { bearer } });
    expect(cold.status, cold.text).toBe(200);
    expect(roundTrips(cold)).toBe(4);
    expect(cold.json.content.map((u: { id: string }) => u.id)).toContain(user.id);
    // Warm: the check rides on the read.
    const warm = await call("GET", "/api/users", { as: { bearer } });
    expect(warm.status).toBe(200);
    expect(roundTrips(warm)).toBe(1);

    const revoked = await call("DELETE", `/api/trusted-access/tokens/${tokenId}`);
    expect(revoked.status, revoked.text).toBe(204);
    expect(await count(env.SHARD_2, "SELECT count(*) AS n FROM access_tokens WHERE token_id = ?", tokenId)).toBe(0);
    expect((await call("GET", "/api/users", { as: { bearer } })).status).toBe(401);
    // Its event is the account's, on SHARD_2.
    expect(await count(env.SHARD_2, "SELECT count(*) AS n FROM audit_events WHERE action = 'token.revoke' AND target_id = ?", tokenId)).toBe(1);
  });

  it("deleting the client revokes its tokens on SHARD_2 too, and its stub there goes", async () => {
    const client = await createClient();
    const { bearer } = await bearerFor(client, admin.username);
    expect((await call("GET", "/api/users", { as: { bearer } })).status).toBe(200);
    const res = await call("DELETE", `/api/trusted-access/clients/${client.clientId}`);
    expect(res.status).toBe(204);
    expect((await call("GET", "/api/users", { as: { bearer } })).status).toBe(401);
    for (const database of [env.DB, env.SHARD_2]) {
      expect(await count(database, "SELECT count(*) AS n FROM access_tokens WHERE client_id = ?", client.clientId)).toBe(0);
      expect(await count(database, "SELECT count(*) AS n FROM trusted_access_clients WHERE client_id = ?", client.clientId)).toBe(0);
    }
  });

  it("a token issued while its client is deleted is withdrawn: none is left on SHARD_2", async () => {
    const client = await createClient();
    await Promise.all([
      call("DELETE", `/api/trusted-access/clients/${client.clientId}`),
      ...Array.from({ length: 6 }, () => call("POST", "/api/trusted-access/pull/tokens", { as: client.credentials, body: { username: admin.username } })),
    ]);
    for (const database of [env.DB, env.SHARD_2]) expect(await count(database, "SELECT count(*) AS n FROM access_tokens WHERE client_id = ?", client.clientId)).toBe(0);
  });
});

describe("the supervisor's rows outside any account, with the default account moved off the directory", () => {
  // The locator places an id no shard holds on the default account's shard: moved to SHARD_2, that is no longer the directory.
  beforeAll(async () => {
    const moved = await call("POST", `/api/accounts/${DEFAULT_ACCOUNT_ID}/move`, { body: { shard: "SHARD_2" } });
    expect(moved.status, moved.text).toBe(200);
  });

  it("its own subscription is found in the directory by id: read, changed, listed, deleted, with its events there", async () => {
    const hook = await subscribe(undefined, ["trusted-access-client.*"]);
    expect(await count(env.DB, "SELECT count(*) AS n FROM webhooks WHERE id = ? AND account_id IS NULL", hook.id)).toBe(1);
    expect(await count(env.SHARD_2, "SELECT count(*) AS n FROM webhooks WHERE id = ?", hook.id)).toBe(0);

    expect((await call("GET", `/api/webhooks/${hook.id}`)).status).toBe(200);
    const patched = await call("PATCH", `/api/webhooks/${hook.id}`, { body: { description: "mine" } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({ accountId: null, description: "mine" });
    const [update] = await eventIdsOn(env.DB, patched);
    expect(update).toBeDefined();
    expect((await call("GET", `/api/webhooks/${hook.id}/deliveries`)).status).toBe(200);
    expect((await call("GET", "/api/webhooks")).json.content.map((h: { id: string }) => h.id)).toContain(hook.id);
    // Its event, outside any account, read by id from the directory.
    const event = await call("GET", `/api/audit-events/${update}`);
    expect(event.status, event.text).toBe(200);
    expect(event.json).toMatchObject({ action: "webhook.update", accountId: null });

    const deleted = await call("DELETE", `/api/webhooks/${hook.id}`);
    expect(deleted.status).toBe(204);
    expect(await eventIdsOn(env.DB, deleted)).toHaveLength(1);
    expectError(await call("GET", `/api/webhooks/${hook.id}`), 404, "NOT_FOUND");
  });

  it("the supervisor's list of every account's events reads every database, newest first, in exact pages", async () => {
    const outside = await call("POST", "/api/trusted-access/clients", { body: { client_name: unique("client"), access_token_validity_seconds: 60 } });
    const inAccount = await call("POST", "/api/groups", { as: as(admin), body: { name: unique("g"), privileges: [] } });
    const [outsideId] = await eventIdsOn(env.DB, outside);
    const [inAccountId] = await eventIdsOn(env.SHARD_2, inAccount);

    const page = await call("GET", "/api/audit-events?maxResults=5");
    expect(page.status, page.text).toBe(200);
    const ids = page.json.content.map((e: { id: string }) => e.id);
    expect(ids).toEqual([...ids].sort().reverse());
    expect(ids.slice(0, 2)).toEqual([inAccountId, outsideId]);

    // Walking every page gives every event of both databases once, in order.
    const all: string[] = [];
    let token: string | null = null;
    do {
      const next = await call("GET", `/api/audit-events?maxResults=7${token ? `&pageToken=${encodeURIComponent(token)}` : ""}`);
      expect(next.status, next.text).toBe(200);
      all.push(...next.json.content.map((e: { id: string }) => e.id));
      token = next.json.pageInfo.nextPageToken;
    } while (token);
    const stored = [
      ...(await env.DB.prepare("SELECT id FROM audit_events").all<{ id: string }>()).results,
      ...(await env.SHARD_2.prepare("SELECT id FROM audit_events").all<{ id: string }>()).results,
    ].map((r) => r.id);
    expect(all).toEqual([...new Set(stored)].sort().reverse());

    // The export merges the same way; ?accountId= reads that account's shard only.
    const ndjson = await call("GET", "/api/audit-events", { headers: { Accept: "application/x-ndjson" } });
    expect(ndjson.text.trim().split("\n")).toHaveLength(all.length);
    const one = await call("GET", `/api/audit-events?accountId=${account.id}&maxResults=200`);
    expect(one.json.content.every((e: { accountId: string }) => e.accountId === account.id)).toBe(true);
    expect(one.json.content.map((e: { id: string }) => e.id)).toContain(inAccountId);
  });
});
