import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, inject, it } from "vitest";
import worker from "../../src/index";
import { WEBHOOK_SWEEP_CRON } from "../../src/webhooks/cron";
import { allEverywhere, countEverywhere } from "./every-database";
import { as, buildRequest, call, createAccount, createUser, databaseOf, expectError, unique, waitFor, type Credentials, type TestUser } from "./helpers";
import { createMetricSource, metricPath } from "./metric-helpers";

/**
 * Webhooks with real parts: the Worker's own Queue producer and consumer (miniflare's local
 * Queue, configured from wrangler.toml), a receiver on loopback started by the global setup, and
 * signatures checked with the `standardwebhooks` package. Retries here are 1, 2, 4 s apart, four
 * attempts, and two FAILED deliveries disable a subscription (vitest.config.ts).
 */
const RECEIVER = inject("connectorServers").webhookReceiverUrl;
const HOOKS = "/api/webhooks";

type Received = { headers: Record<string, string>; body: string; answered: number | null };

let accountA: { id: string };
let accountB: { id: string };
let adminA: TestUser;
let adminB: TestUser;
/** Every secret issued in this file: none may appear in any payload. */
const issuedSecrets: string[] = [];

beforeAll(async () => {
  [accountA, accountB] = await Promise.all([createAccount(), createAccount()]);
  [adminA, adminB] = await Promise.all([
    createUser(accountA.id, { groups: ["Users", "Administrators"] }),
    createUser(accountB.id, { groups: ["Users", "Administrators"] }),
  ]);
});

async function subscribe(who: Credentials | undefined, events: string[], query = "") {
  const name = unique("hook");
  const res = await call("POST", HOOKS, { as: who, body: { url: `${RECEIVER}/hooks/${name}${query}`, events } });
  expect(res.status, res.text).toBe(201);
  issuedSecrets.push(res.json.secret);
  return { name, id: res.json.id as string, secret: res.json.secret as string };
}

async function received(name: string): Promise<Received[]> {
  return (await fetch(`${RECEIVER}/received/${name}`)).json();
}

const idsOf = (list: Received[]) => list.map((r) => r.headers["webhook-id"]);

/** The request's audit events (ids and actions), from D1. */
async function eventsOfRequest(res: { headers: Headers }) {
  // On whichever database holds them: the account's shard, or the directory for changes outside any account.
  const rows = (await allEverywhere("SELECT id, action, account_id FROM audit_events WHERE request_id = ?", res.headers.get("X-Request-Id"))) as { id: string; action: string }[];
  return rows.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** Payloads verified with the standardwebhooks package: a tampered body or a wrong secret throws. */
function verified(secret: string, record: Received) {
  return new Webhook(secret).verify(record.body, record.headers) as { type: string; timestamp: string; data: Record<string, any> };
}

const settle = () => new Promise((r) => setTimeout(r, 2500));

/** A group of account A made by the Worker with no Queue binding: the request commits and its send never happens (an isolate that died first). */
async function createGroupUnsent() {
  const ctx = createExecutionContext();
  const res = await worker.fetch(buildRequest("POST", "/api/groups", { as: as(adminA), body: { name: unique("g"), privileges: [] } }) as never, { ...env, WEBHOOK_QUEUE: undefined } as never, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("subscriptions", () => {
  it("POST answers 201 with the only copy of a whsec_ secret, stored sealed; list, get, PATCH, rotation, DELETE", async () => {
    const res = await call("POST", HOOKS, { as: as(adminA), body: { url: `${RECEIVER}/hooks/crud`, events: ["source.*", "custom-metric.update"], description: "sync" } });
    expect(res.status, res.text).toBe(201);
    const hook = res.json;
    issuedSecrets.push(hook.secret);
    expect(hook).toMatchObject({ accountId: accountA.id, events: ["source.*", "custom-metric.update"], description: "sync", enabled: true, disabledReason: null, consecutiveFailures: 0 });
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(res.headers.get("Location")).toBe(`${HOOKS}/${hook.id}`);
    const [row] = await allEverywhere("SELECT * FROM webhooks WHERE id = ?", hook.id);
    expect(JSON.stringify(row)).not.toContain(hook.secret.slice(6));

    const answers = [
      await call("GET", HOOKS, { as: as(adminA) }),
      await call("GET", `${HOOKS}/${hook.id}`, { as: as(adminA) }),
      await call("PATCH", `${HOOKS}/${hook.id}`, { as: as(adminA), body: { events: ["*"], enabled: false } }),
    ];
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(200);
      expect(answer.text).not.toContain(hook.secret);
    }
    expect(answers[0]!.json.content.map((h: { id: string }) => h.id)).toContain(hook.id);
    expect(answers[2]!.json).toMatchObject({ events: ["*"], enabled: false });

    const rotated = await call("POST", `${HOOKS}/${hook.id}/secret`, { as: as(adminA) });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.json.secret).toMatch(/^whsec_/);
    expect(rotated.json.secret).not.toBe(hook.secret);
    issuedSecrets.push(rotated.json.secret);

    expect((await call("DELETE", `${HOOKS}/${hook.id}`, { as: as(adminA) })).status).toBe(204);
    expectError(await call("GET", `${HOOKS}/${hook.id}`, { as: as(adminA) }), 404, "NOT_FOUND");
  });

  it("refuses URLs the host policy refuses, plain http to an unlisted host, and unknown event patterns, naming the member", async () => {
    for (const url of ["http://10.0.0.7/hook", "https://169.254.169.254/latest", "https://localhost/hook", "http://hooks.example.com/x", "ftp://127.0.0.1/x", "not a url", "https://u:p@hooks.example.com/"]) {
      expectError(await call("POST", HOOKS, { as: as(adminA), body: { url, events: ["*"] } }), 400, "VALIDATION_FAILED", ["body.url"]);
    }
    for (const events of [["source"], ["nothing.*"], ["source.explode"], []]) {
      const res = await call("POST", HOOKS, { as: as(adminA), body: { url: "https://hooks.example.com/x", events } });
      expect(res.status, res.text).toBe(400);
      expect(res.json.problems[0].name).toMatch(/^body\.events/);
    }
    expectError(await call("POST", HOOKS, { as: as(adminA), body: { url: "https://hooks.example.com/x", events: ["*"], secret: "mine" } }), 400, "VALIDATION_FAILED", ["body.secret"]);
    // Plain http to a host CONNECTOR_ALLOWED_HOSTS lists (here 127.0.0.1) passes (test/unit/domain/webhooks.test.ts: https to public hosts).
    expect((await call("POST", HOOKS, { as: as(adminA), body: { url: "http://127.0.0.1:9/x", events: ["*"], enabled: false } })).status).toBe(201);
  });

  it("needs ROLE_MANAGE_WEBHOOKS; another account's subscription is 404; the supervisor lists one account's at a time and chooses the account", async () => {
    const plain = await createUser(accountA.id);
    expectError(await call("GET", HOOKS, { as: as(plain) }), 403, "FORBIDDEN");
    const manager = await createUser(accountA.id, { roles: ["ROLE_MANAGE_WEBHOOKS"] });
    expect((await call("GET", HOOKS, { as: as(manager) })).status).toBe(200);

    const mine = await subscribe(as(adminA), ["*"]);
    for (const [method, path] of [["GET", `${HOOKS}/${mine.id}`], ["PATCH", `${HOOKS}/${mine.id}`], ["DELETE", `${HOOKS}/${mine.id}`], ["POST", `${HOOKS}/${mine.id}/secret`], ["GET", `${HOOKS}/${mine.id}/deliveries`], ["POST", `${HOOKS}/${mine.id}/test`]] as const) {
      expectError(await call(method, path, { as: as(adminB), body: method === "PATCH" ? { enabled: false } : undefined }), 404, "NOT_FOUND");
    }
    expect((await call("GET", HOOKS, { as: as(adminB) })).json.content.map((h: { id: string }) => h.id)).not.toContain(mine.id);
    expect((await call("GET", `${HOOKS}?accountId=${accountA.id}`)).json.content.map((h: { id: string }) => h.id)).toContain(mine.id);
    expect((await call("GET", HOOKS)).json.content.map((h: { accountId: string | null }) => h.accountId)).not.toContain(accountA.id);
    expect((await call("GET", `${HOOKS}/${mine.id}`)).status).toBe(200);
    expectError(await call("GET", `${HOOKS}?accountId=${accountB.id}`, { as: as(adminA) }), 403, "ACCOUNT_FORBIDDEN");
    expect((await call("GET", `${HOOKS}?accountId=${accountA.id}`, { as: as(adminA) })).json.content.map((h: { id: string }) => h.id)).toContain(mine.id);

    const url = `${RECEIVER}/hooks/${unique("hook")}`;
    expectError(await call("POST", HOOKS, { as: as(adminA), body: { url, events: ["*"], accountId: accountB.id } }), 403, "ACCOUNT_FORBIDDEN");
    expectError(await call("POST", HOOKS, { body: { url, events: ["*"], accountId: "no-such-account" } }), 400, "VALIDATION_FAILED", ["body.accountId"]);
    const forB = await call("POST", HOOKS, { body: { url, events: ["*"], accountId: accountB.id, enabled: false } });
    expect(forB.json.accountId).toBe(accountB.id);
    expect((await call("GET", HOOKS, { as: as(adminB) })).json.content.map((h: { id: string }) => h.id)).toContain(forB.json.id);
    const outside = (await call("POST", HOOKS, { body: { url, events: ["*"], enabled: false } })).json;
    expect(outside.accountId).toBeNull();
    const supervisorList = (await call("GET", HOOKS)).json.content as { id: string; accountId: string | null }[];
    expect(supervisorList.map((h) => h.id)).toContain(outside.id);
    expect(supervisorList.every((h) => h.accountId === null)).toBe(true);
  });
});

describe("the limit of subscriptions", () => {
  it("110 simultaneous creations in one account make exactly 100 subscriptions (and 100 events); the rest are 409 TOO_MANY_WEBHOOKS", async () => {
    const account = await createAccount();
    const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
    const answers = await Promise.all(
      Array.from({ length: 110 }, (_, i) => call("POST", HOOKS, { as: as(admin), body: { url: `${RECEIVER}/hooks/${unique(`limit${i}`)}`, events: ["group.create"] } })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(100);
    for (const refused of answers.filter((a) => a.status !== 201)) expectError(refused, 409, "TOO_MANY_WEBHOOKS");
    issuedSecrets.push(...answers.filter((a) => a.status === 201).map((a) => a.json.secret as string));
    const count = (sql: string) => countEverywhere(sql, account.id);
    expect(await count("SELECT count(*) AS n FROM webhooks WHERE account_id = ?")).toBe(100);
    expect(await count("SELECT count(*) AS n FROM audit_events WHERE account_id = ? AND action = 'webhook.create'")).toBe(100);
    // Another account's limit is its own.
    expect((await call("POST", HOOKS, { as: as(adminB), body: { url: `${RECEIVER}/hooks/${unique("other")}`, events: ["group.create"] } })).status).toBe(201);
  }, 30_000);
});

describe("delivery through the Queue", () => {
  it("every kind of change reaches a matching subscriber once, signed; a non-matching one never; another account's never", async () => {
    const everything = await subscribe(as(adminA), ["*"]);
    const sources = await subscribe(as(adminA), ["source.*"]);
    const metricUpdates = await subscribe(as(adminA), ["custom-metric.update"]);
    const otherAccount = await subscribe(as(adminB), ["*"]);
    const supervisor = await subscribe(undefined, ["*"]);

    const writes: { id: string; action: string }[] = [];
    const source = await createMetricSource(adminA);
    writes.push(...((await allEverywhere("SELECT id, action FROM audit_events WHERE target_id = ? AND action = 'source.create'", source.id)) as { id: string; action: string }[]));
    const steps = [
      () => call("PUT", metricPath(source.id, "m1"), { as: as(adminA), body: { expression: "count(*)" } }),
      () => call("PUT", metricPath(source.id, "m1"), { as: as(adminA), body: { expression: "count(*) + 1" } }),
      () => call("DELETE", metricPath(source.id, "m1"), { as: as(adminA) }),
      () => call("PATCH", `/api/sources/${source.id}`, { as: as(adminA), body: { description: "changed" } }),
      () => call("POST", "/api/groups", { as: as(adminA), body: { name: unique("g"), privileges: [] } }),
      () => call("POST", "/api/users", { as: as(adminA), body: { name: unique("u"), password: "correct horse battery", groups: ["Users"] } }),
      () => call("DELETE", `/api/sources/${source.id}`, { as: as(adminA) }),
    ];
    for (const step of steps) {
      const res = await step();
      expect(res.status, res.text).toBeLessThan(300);
      writes.push(...(await eventsOfRequest(res)));
    }
    expect(new Set(writes.map((w) => w.action))).toEqual(
      new Set(["source.create", "custom-metric.create", "custom-metric.update", "custom-metric.delete", "source.update", "group.create", "user.create", "source.delete"]),
    );

    const got = await waitFor("every event at the * subscriber", async () => {
      const list = (await received(everything.name)).filter((r) => writes.some((w) => w.id === r.headers["webhook-id"]));
      return list.length >= writes.length ? list : undefined;
    });
    await settle();
    const all = await received(everything.name);
    // Exactly once each, and each verified.
    for (const write of writes) expect(idsOf(all).filter((id) => id === write.id)).toHaveLength(1);
    for (const record of got) {
      const payload = verified(everything.secret, record);
      const write = writes.find((w) => w.id === record.headers["webhook-id"])!;
      expect(payload.type).toBe(write.action);
      expect(payload.data).toMatchObject({ id: write.id, action: write.action, accountId: accountA.id });
    }
    const sourceIds = idsOf(await received(sources.name));
    expect(sourceIds.sort()).toEqual(writes.filter((w) => w.action.startsWith("source.")).map((w) => w.id).sort());
    expect(idsOf(await received(metricUpdates.name))).toEqual(writes.filter((w) => w.action === "custom-metric.update").map((w) => w.id));
    expect(idsOf(await received(otherAccount.name)).filter((id) => writes.some((w) => w.id === id))).toEqual([]);
    expect(idsOf(await received(supervisor.name)).filter((id) => writes.some((w) => w.id === id))).toEqual([]);

    const deliveries = await call("GET", `${HOOKS}/${sources.id}/deliveries`, { as: as(adminA) });
    expect(deliveries.status, deliveries.text).toBe(200);
    expect(deliveries.json.content).toHaveLength(sourceIds.length);
    for (const d of deliveries.json.content) expect(d).toMatchObject({ attempts: 1, lastStatus: 204, outcome: "DELIVERED", nextAttemptAt: null });
  }, 40_000);

  it("the supervisor's subscription gets changes outside any account, and no account's", async () => {
    const hook = await subscribe(undefined, ["trusted-access-client.*"]);
    const res = await call("POST", "/api/trusted-access/clients", { body: { client_name: unique("portal"), access_token_validity_seconds: 60 } });
    expect(res.status).toBe(201);
    const [event] = await eventsOfRequest(res);
    const list = await waitFor("the client's event", async () => ((await received(hook.name)).length > 0 ? received(hook.name) : undefined));
    expect(idsOf(list)).toEqual([event!.id]);
    expect(verified(hook.secret, list[0]!).data.accountId).toBeNull();
    // The client secret the answer issued is in no payload.
    expect(list[0]!.body).not.toContain(res.json.client_secret);
  }, 30_000);

  it("a subscriber that fails three times and then recovers gets the event, after backoff", async () => {
    const hook = await subscribe(as(adminA), ["group.*"], "?fail=3");
    const res = await call("POST", "/api/groups", { as: as(adminA), body: { name: unique("g"), privileges: [] } });
    const [event] = await eventsOfRequest(res);
    const list = await waitFor("the fourth attempt", async () => {
      const got = await received(hook.name);
      return got.some((r) => r.answered === 204) ? got : undefined;
    }, 30_000);
    expect(list.map((r) => r.answered)).toEqual([503, 503, 503, 204]);
    expect(new Set(idsOf(list))).toEqual(new Set([event!.id]));
    expect(verified(hook.secret, list[3]!).data.id).toBe(event!.id);
    // Backoff: the attempts' timestamps spread over at least 1 + 2 + 4 s.
    const times = list.map((r) => Number(r.headers["webhook-timestamp"]));
    expect(times[3]! - times[0]!).toBeGreaterThanOrEqual(6);
    const [delivery] = (await call("GET", `${HOOKS}/${hook.id}/deliveries`, { as: as(adminA) })).json.content;
    expect(delivery).toMatchObject({ eventId: event!.id, action: "group.create", attempts: 4, lastStatus: 204, outcome: "DELIVERED" });
  }, 40_000);

  it("an isolate that dies between commit and enqueue loses nothing: the cron's sweep carries the event", async () => {
    const hook = await subscribe(as(adminA), ["group.create"]);
    const res = await createGroupUnsent();
    expect(res.status).toBe(201);
    const [event] = await eventsOfRequest(res);
    await settle();
    expect(await received(hook.name)).toEqual([]);

    const cron = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: WEBHOOK_SWEEP_CRON }), env as never);
    await waitOnExecutionContext(cron);
    const list = await waitFor("the swept event", async () => ((await received(hook.name)).length > 0 ? received(hook.name) : undefined));
    await settle();
    expect(idsOf(await received(hook.name))).toEqual([event!.id]);
    expect(verified(hook.secret, list[0]!).type).toBe("group.create");
  }, 30_000);

  it("the sweep enqueues again a PENDING delivery whose message was lost (a consumer that died after the fan-out)", async () => {
    const hook = await subscribe(as(adminA), ["group.create"]);
    const res = await createGroupUnsent();
    const [event] = await eventsOfRequest(res);
    // What the fan-out wrote before its consumer died: the delivery, long due, and the event's dispatch mark.
    const deliveryId = crypto.randomUUID();
    const db = await databaseOf(accountA.id);
    await db.batch([
      db.prepare("INSERT INTO webhook_deliveries (id, webhook_id, event_id, attempts, outcome, next_attempt_at, created_at, updated_at) VALUES (?1, ?2, ?3, 0, 'PENDING', ?4, ?4, ?4)").bind(deliveryId, hook.id, event!.id, "2026-01-01T00:00:00.000Z"),
      db.prepare("INSERT INTO webhook_dispatched (event_id) VALUES (?)").bind(event!.id),
    ]);
    await worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: WEBHOOK_SWEEP_CRON }), env as never);
    await waitFor("the delivery", async () => ((await received(hook.name)).length > 0 ? true : undefined));
    await settle();
    expect(idsOf(await received(hook.name))).toEqual([event!.id]);
    expect((await call("GET", `${HOOKS}/${hook.id}/deliveries`, { as: as(adminA) })).json.content).toEqual([expect.objectContaining({ id: deliveryId, outcome: "DELIVERED", attempts: 1 })]);
  }, 30_000);

  it("an event carried three times, beside an id of no event (a conditional write that changed nothing), makes one delivery of that event only", async () => {
    const hook = await subscribe(as(adminA), ["group.create"]);
    const res = await createGroupUnsent();
    const [event] = await eventsOfRequest(res);
    const message = { events: [event!.id, "01JDA7Q5N0XZ5M8W4Y9F3R2T1K"] };
    await env.WEBHOOK_QUEUE.sendBatch([{ body: message }, { body: message }]);
    await env.WEBHOOK_QUEUE.send(message);
    await waitFor("the event", async () => ((await received(hook.name)).length > 0 ? true : undefined));
    await settle();
    // At least once: carriages in separate batches may each attempt the one delivery; the subscriber dedupes by webhook-id.
    expect(new Set(idsOf(await received(hook.name)))).toEqual(new Set([event!.id]));
    expect((await call("GET", `${HOOKS}/${hook.id}/deliveries`, { as: as(adminA) })).json.content).toEqual([expect.objectContaining({ eventId: event!.id, outcome: "DELIVERED" })]);
  }, 30_000);

  it("a change in an account with no subscription goes to no Queue, and a new subscription gets no change older than itself", async () => {
    const quiet = await createAccount();
    const admin = await createUser(quiet.id, { groups: ["Users", "Administrators"] });
    const dispatched = async (id: string) => ((await countEverywhere("SELECT count(*) AS n FROM webhook_dispatched WHERE event_id = ?", id)) > 0 ? { found: 1 } : null);
    // The Queue is bound, but nobody listens to this account: no message carries the event (a carried one is marked dispatched).
    const unheard = await call("POST", "/api/groups", { as: as(admin), body: { name: unique("g"), privileges: [] } });
    expect(unheard.status).toBe(201);
    const [old] = await eventsOfRequest(unheard);
    await settle();
    expect(await dispatched(old!.id)).toBeNull();

    // Subscribed afterwards: the sweep does not carry the older event to it, and the next change arrives.
    const hook = await subscribe(as(admin), ["group.create"]);
    await worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: WEBHOOK_SWEEP_CRON }), env as never);
    const heard = await call("POST", "/api/groups", { as: as(admin), body: { name: unique("g"), privileges: [] } });
    const [fresh] = await eventsOfRequest(heard);
    await waitFor("the new event", async () => ((await received(hook.name)).length > 0 ? true : undefined));
    await settle();
    expect(idsOf(await received(hook.name))).toEqual([fresh!.id]);
    expect(await dispatched(old!.id)).toBeNull();
  }, 30_000);

  it("a delivery that fails every attempt is FAILED; a retry delivers it; two FAILED in a row disable the subscription (an audit event)", async () => {
    // Four 503s exhaust the four attempts; the fifth request (the manual retry) is answered 204.
    const flaky = await subscribe(as(adminA), ["group.create"], "?fail=4");
    const first = await call("POST", "/api/groups", { as: as(adminA), body: { name: unique("g"), privileges: [] } });
    const [event] = await eventsOfRequest(first);
    const failed = await waitFor("a FAILED delivery", async () => {
      const [d] = (await call("GET", `${HOOKS}/${flaky.id}/deliveries`, { as: as(adminA) })).json.content;
      return d?.outcome === "FAILED" ? d : undefined;
    }, 30_000);
    expect(failed).toMatchObject({ eventId: event!.id, attempts: 4, lastStatus: 503, lastError: "HTTP 503" });
    expect((await call("GET", `${HOOKS}/${flaky.id}`, { as: as(adminA) })).json).toMatchObject({ enabled: true, consecutiveFailures: 1 });

    const retried = await call("POST", `${HOOKS}/${flaky.id}/deliveries/${failed.id}/retry`, { as: as(adminA) });
    expect(retried.status, retried.text).toBe(202);
    expect(retried.json).toMatchObject({ outcome: "PENDING", attempts: 0 });
    expectError(await call("POST", `${HOOKS}/${flaky.id}/deliveries/${failed.id}/retry`, { as: as(adminA) }), 409, "DELIVERY_NOT_FAILED");
    await waitFor("the retried delivery", async () => ((await received(flaky.name)).some((r) => r.answered === 204) ? true : undefined));
    await waitFor("DELIVERED", async () => ((await call("GET", `${HOOKS}/${flaky.id}/deliveries`, { as: as(adminA) })).json.content[0].outcome === "DELIVERED" ? true : undefined));
    expect((await call("GET", `${HOOKS}/${flaky.id}`, { as: as(adminA) })).json.consecutiveFailures).toBe(0);

    const broken = await subscribe(as(adminA), ["user.create"], "?status=500");
    for (let i = 0; i < 2; i++) await call("POST", "/api/users", { as: as(adminA), body: { name: unique("u"), password: "correct horse battery", groups: ["Users"] } });
    const disabled = await waitFor("the subscription disabled", async () => {
      const hook = (await call("GET", `${HOOKS}/${broken.id}`, { as: as(adminA) })).json;
      return hook.enabled ? undefined : hook;
    }, 30_000);
    expect(disabled).toMatchObject({ enabled: false, consecutiveFailures: 2, disabledReason: "Disabled after 2 failed deliveries in a row" });
    const events = await call("GET", `/api/audit-events?targetId=${broken.id}&action=webhook.disable`, { as: as(adminA) });
    expect(events.json.content).toEqual([expect.objectContaining({ action: "webhook.disable", accountId: accountA.id, actor: { type: "SYSTEM", id: null, name: "webhook-delivery", authentication: "NONE" } })]);
  }, 60_000);

  it("POST /test sends a signed ping and tells how the receiver answered", async () => {
    const hook = await subscribe(as(adminA), ["*"]);
    const res = await call("POST", `${HOOKS}/${hook.id}/test`, { as: as(adminA) });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ delivered: true, status: 204, error: null, webhookId: expect.stringMatching(/^ping_/) });
    const [ping] = await received(hook.name);
    expect(verified(hook.secret, ping!)).toMatchObject({ type: "webhook.ping", data: { webhookId: hook.id } });

    const down = await subscribe(as(adminA), ["*"], "?status=500");
    expect((await call("POST", `${HOOKS}/${down.id}/test`, { as: as(adminA) })).json).toMatchObject({ delivered: false, status: 500, error: "HTTP 500" });
  });

  it("no secret ever appears in a payload", async () => {
    const bodies: string[] = [];
    const names = ((await allEverywhere("SELECT url FROM webhooks")) as { url: string }[]).map((r) => r.url.split("/hooks/")[1]?.split("?")[0]).filter(Boolean);
    for (const name of names) bodies.push(...(await received(name!)).map((r) => r.body));
    expect(bodies.length).toBeGreaterThan(20);
    for (const secret of issuedSecrets) {
      for (const body of bodies) expect(body).not.toContain(secret.slice(6));
    }
  });
});
