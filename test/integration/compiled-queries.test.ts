import { beforeAll, describe, expect, inject, it } from "vitest";
import { connectionBody, createConnection } from "./connection-helpers";
import { as, call, createAccount, createGroup, createUser, databases, expectError, ROUTING_TRIPS, unique, type CallResult, type TestUser } from "./helpers";
import { createOrdersSource, createView, VIEWS, viewBody } from "./materialized-view-helpers";
import { createMetricSource, metricPath, putMetric } from "./metric-helpers";
import { calendarPath, calendarsPath, createCalendar, monthShiftCalendar } from "./calendar-helpers";
import { sourcePath } from "./source-helpers";
import { env } from "cloudflare:workers";
import { sha256Hex } from "../../src/domain/passwords";
import { createClient, pullToken, pushToken } from "./trusted-access-helpers";
import { allEverywhere } from "./every-database";

// Queries compiled once per isolate (src/db/compiled.ts) serve every request with that request's
// own values, on that request's own D1 handle: interleaved requests never see each other's rows,
// and each counts its own round trip.
describe("queries compiled once per isolate", () => {
  it("answer each of many interleaved requests with its own row, in one round trip each (E10, E17)", async () => {
    const accounts = await Promise.all(Array.from({ length: 6 }, () => createAccount()));
    const admins = await Promise.all(accounts.map((a) => createUser(a.id, { groups: ["Users", "Administrators"] })));
    const byName = await Promise.all(
      [...accounts, ...accounts].map((a) => call("GET", `/api/accounts/name/${encodeURIComponent(a.name)}`)),
    );
    byName.forEach((res, i) => {
      expect(res.status).toBe(200);
      expect(res.json.id).toBe(accounts[i % accounts.length]!.id);
      expect(res.headers.get("X-D1-Round-Trips")).toBe(String(1 + ROUTING_TRIPS.accountByName));
    });
    for (const [i, account] of accounts.entries()) {
      const put = await call("PUT", "/api/quota", { body: { accountId: account.id, quotas: [{ type: "SOURCE", limit: 10 + i }] } });
      expect(put.status).toBeLessThan(300);
    }
    // Each admin signs in first (a cold sign-in reads the user: a round trip of its own).
    for (const admin of admins) await call("GET", "/api/user", { as: as(admin) });
    const quotas = await Promise.all(admins.map((admin, i) => call("GET", `/api/quota/${accounts[i]!.id}`, { as: as(admin) })));
    quotas.forEach((res, i) => {
      expect(res.json.accountId).toBe(accounts[i]!.id);
      expect(res.json.quotas.find((q: { type: string }) => q.type === "SOURCE").limit).toBe(10 + i);
      expect(res.headers.get("X-D1-Round-Trips")).toBe("1");
    });
  });

  it("store each of many interleaved custom-metric writes with its own values, lists of any length bound as one parameter (E1)", async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => createAccount()));
    const admins = await Promise.all(accounts.map((a) => createUser(a.id, { groups: ["Users", "Administrators"] })));
    const sources = await Promise.all(admins.map((admin) => createMetricSource(admin)));
    // Account i's metric sums i + 1 fields (the batched read's names and the references' list differ in length).
    const terms = ["SUM(price)", "SUM(qty)", "COUNT(carrier)", "MAX(price)"];
    const expression = (i: number, extra = "") => terms.slice(0, i + 1).join(" + ") + extra;
    const created = await Promise.all(admins.map((admin, i) => putMetric(admin, sources[i]!.id, "m", { expression: expression(i) })));
    created.forEach((res, i) => {
      expect(res.status, res.text).toBe(201);
      expect(res.json.expression).toBe(expression(i));
      expect(res.headers.get("X-D1-Round-Trips")).toBe("2");
    });
    // Updates, half with If-Match: each lands on its own metric.
    const updated = await Promise.all(
      admins.map((admin, i) => putMetric(admin, sources[i]!.id, "m", { expression: expression(i, " * 2") }, i % 2 ? { "If-Match": created[i]!.headers.get("ETag")! } : undefined)),
    );
    updated.forEach((res, i) => {
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get("X-D1-Round-Trips")).toBe("2");
    });
    const read = await Promise.all(admins.map((admin, i) => call("GET", metricPath(sources[i]!.id, "m"), { as: as(admin) })));
    read.forEach((res, i) => expect(res.json.expression).toBe(expression(i, " * 2")));
    // A stale If-Match still misses, and another account's source is still not found.
    expect((await putMetric(admins[1]!, sources[1]!.id, "m", { expression: "SUM(qty)" }, { "If-Match": created[1]!.headers.get("ETag")! })).status).toBe(412);
    expect((await putMetric(admins[0]!, sources[1]!.id, "m", { expression: "SUM(qty)" })).status).toBe(404);
  });

  it("still answer 404 for a name no account has", async () => {
    const res = await call("GET", "/api/accounts/name/no-such-account-anywhere");
    expect(res.status).toBe(404);
  });
});

describe("a user's update, compiled once per isolate", () => {
  it("stores each of many interleaved updates in different accounts with its own values, groups and password", async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => createAccount()));
    const groups = await Promise.all(accounts.map((a, i) => createGroup(a.id, `Team ${i}`)));
    const users = await Promise.all(accounts.map((a) => createUser(a.id)));
    // Half change the password and send If-Match; account i's user joins i's own group (none for the first).
    const updated = await Promise.all(
      users.map(async (user, i) => {
        const current = await call("GET", `/api/users/${user.id}`);
        const body = { id: user.id, name: `${user.username}-renamed`, fullName: `Full ${i}`, email: `u${i}@example.com`, roles: [], groups: i === 0 ? [] : ["Users", groups[i]!.name], ...(i % 2 ? { password: `New-password-${i}!` } : {}) };
        return call("PUT", `/api/users/${user.id}`, { body, headers: i % 2 ? { "If-Match": current.headers.get("ETag")! } : {} });
      }),
    );
    updated.forEach((res) => expect(res.status, res.text).toBe(200));
    const read = await Promise.all(users.map((user) => call("GET", `/api/users/${user.id}`)));
    read.forEach((res, i) => {
      expect(res.json).toMatchObject({ name: `${users[i]!.username}-renamed`, fullName: `Full ${i}`, email: `u${i}@example.com`, accountId: accounts[i]!.id });
      expect(res.json.groups).toEqual(i === 0 ? [] : [groups[i]!.name, "Users"].sort());
    });
    // The new passwords were stored on their own users; the others kept theirs.
    const signIns = await Promise.all(users.map((user, i) => call("GET", "/api/user", { as: { username: `${user.username}-renamed`, password: i % 2 ? `New-password-${i}!` : user.password } })));
    signIns.forEach((res) => expect(res.status, res.text).toBe(200));
    // A stale If-Match misses, leaving the user as it was.
    const stale = await call("PUT", `/api/users/${users[1]!.id}`, { body: { id: users[1]!.id, name: "stale", roles: [], groups: [] }, headers: { "If-Match": updated[0]!.headers.get("ETag")! } });
    expect(stale.status).toBe(412);
    expect((await call("GET", `/api/users/${users[1]!.id}`)).json.name).toBe(`${users[1]!.username}-renamed`);
  });
});

// Lists compiled once per isolate, one template per kind of caller (and per optional filter): many
// requests of different accounts and kinds of caller, interleaved, each get their own rows.
describe("lists compiled once per isolate", () => {
  type World = {
    account: { id: string };
    admin: TestUser;
    reader: TestUser;
    stranger: TestUser;
    granted: { id: string };
    other: { id: string };
    views: { granted: string; other: string };
    webhook: string;
    connections: [Connection, Connection];
  };
  type Connection = { id: string; name: string };
  const worlds: World[] = [];
  /** A subscription (disabled: it receives nothing) of account `accountId`, or the supervisor's own with none. */
  const subscribe = async (accountId?: string) => {
    const res = await call("POST", "/api/webhooks", { body: { url: `${inject("connectorServers").webhookReceiverUrl}/hooks/${unique("hook")}`, events: ["*"], enabled: false, accountId } });
    expect(res.status, res.text).toBe(201);
    return res.json.id as string;
  };
  let supervisorsWebhook: string;

  // Each account: an admin's two sources with a view each; a reader granted READ on one of them
  // (by its group in even accounts, by name in odd ones); a stranger granted nothing.
  beforeAll(async () => {
    for (let i = 0; i < 3; i++) {
      const account = await createAccount();
      const group = await createGroup(account.id, `Readers ${i}`);
      const admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
      const reader = await createUser(account.id, { groups: ["Users", `Readers ${i}`] });
      const stranger = await createUser(account.id);
      const [granted, other] = [await createOrdersSource(admin), await createOrdersSource(admin)];
      const grantee = i % 2 === 0 ? { principalType: "GROUP", principalId: group.id } : { principalType: "USER", principalId: reader.id };
      const put = await call("PUT", `${sourcePath(granted.id)}/permissions`, { as: as(admin), body: { content: [{ ...grantee, permission: "READ" }] } });
      expect(put.status, put.text).toBe(200);
      const views = { granted: (await createView(admin, viewBody(granted.id))).id, other: (await createView(admin, viewBody(other.id))).id };
      // Each signs in first (a cold sign-in reads the user: a round trip of its own).
      for (const user of [reader, stranger]) await call("GET", "/api/user", { as: as(user) });
      const connections: [Connection, Connection] = [await createConnection(admin, connectionBody(unique(`A ${i}`))), await createConnection(admin, connectionBody(unique(`B ${i}`)))];
      worlds.push({ account, admin, reader, stranger, granted, other, views, webhook: await subscribe(account.id), connections });
    }
    supervisorsWebhook = await subscribe();
  });

  /**
   * Runs every request at once, each twice, interleaved, and checks each answer: a user's in one
   * round trip (the supervisor's naming an account may add the routing's, docs/sharding.md).
   */
  async function expectEachOwn(requests: { call: () => Promise<CallResult>; expect: (res: CallResult) => void; supervisor?: true }[]) {
    const twice = [...requests, ...requests.slice().reverse()];
    const answers = await Promise.all(twice.map((r) => r.call()));
    answers.forEach((res, i) => {
      expect(res.status, res.text).toBe(200);
      if (!twice[i]!.supervisor) expect(res.headers.get("X-D1-Round-Trips")).toBe("1");
      twice[i]!.expect(res);
    });
  }

  const ids = (res: CallResult) => res.json.content.map((row: { id: string }) => row.id).sort();

  it("GET /api/materialized-views: admins, readers and strangers of several accounts, with and without sourceId", async () => {
    await expectEachOwn(
      worlds.flatMap(({ admin, reader, stranger, other, views }) => [
        { call: () => call("GET", VIEWS, { as: as(admin) }), expect: (res) => expect(ids(res)).toEqual([views.granted, views.other].sort()) },
        { call: () => call("GET", `${VIEWS}?sourceId=${other.id}`, { as: as(admin) }), expect: (res) => expect(ids(res)).toEqual([views.other]) },
        { call: () => call("GET", VIEWS, { as: as(reader) }), expect: (res) => expect(ids(res)).toEqual([views.granted]) },
        { call: () => call("GET", `${VIEWS}?sourceId=${other.id}`, { as: as(reader) }), expect: (res) => expect(ids(res)).toEqual([]) },
        { call: () => call("GET", VIEWS, { as: as(stranger) }), expect: (res) => expect(ids(res)).toEqual([]) },
      ]),
    );
  });

  it("GET /api/webhooks: admins of several accounts, the supervisor naming each account or none", async () => {
    const hooks = "/api/webhooks";
    await expectEachOwn([
      ...worlds.flatMap(({ account, admin, webhook }) => [
        { call: () => call("GET", hooks, { as: as(admin) }), expect: (res: CallResult) => expect(ids(res)).toEqual([webhook]) },
        { call: () => call("GET", `${hooks}?accountId=${account.id}`), expect: (res: CallResult) => expect(ids(res)).toEqual([webhook]), supervisor: true as const },
      ]),
      {
        call: () => call("GET", hooks),
        expect: (res) => {
          expect(ids(res)).toContain(supervisorsWebhook);
          expect(res.json.content.every((h: { accountId: string | null }) => h.accountId === null)).toBe(true);
        },
        supervisor: true,
      },
    ]);
  });

  it("GET /api/connections: several accounts, with and without name and ids", async () => {
    const list = (user: TestUser, query = "") => () => call("GET", `/api/connections${query}`, { as: as(user) });
    // In the answer's order (by name).
    const listed = (res: CallResult) => res.json.content.map((row: { id: string }) => row.id);
    await expectEachOwn(
      worlds.flatMap(({ admin, connections: [a, b] }, i) => {
        const elsewhere = worlds[(i + 1) % worlds.length]!.connections[0];
        const named = `?name=${encodeURIComponent(a.name)}`;
        return [
          { call: list(admin), expect: (res: CallResult) => expect(listed(res)).toEqual([a.id, b.id]) },
          { call: list(admin, "?ids="), expect: (res: CallResult) => expect(listed(res)).toEqual([a.id, b.id]) },
          { call: list(admin, named), expect: (res: CallResult) => expect(listed(res)).toEqual([a.id]) },
          { call: list(admin, `?ids=${b.id},${elsewhere.id}`), expect: (res: CallResult) => expect(listed(res)).toEqual([b.id]) },
          { call: list(admin, `${named}&ids=${b.id}`), expect: (res: CallResult) => expect(listed(res)).toEqual([]) },
          { call: list(admin, `${named}&ids=${a.id},${b.id}`), expect: (res: CallResult) => expect(listed(res)).toEqual([a.id]) },
        ];
      }),
    );
  });

  it("GET /api/dashboards/sources: admins, readers and strangers of several accounts, and the supervisor", async () => {
    const briefs = (user?: TestUser) => () => call("GET", "/api/dashboards/sources", { as: user && as(user) });
    await expectEachOwn([
      ...worlds.flatMap(({ admin, reader, stranger, granted, other }) => [
        { call: briefs(admin), expect: (res: CallResult) => expect(ids(res)).toEqual([granted.id, other.id].sort()) },
        { call: briefs(reader), expect: (res: CallResult) => expect(ids(res)).toEqual([granted.id]) },
        { call: briefs(stranger), expect: (res: CallResult) => expect(ids(res)).toEqual([]) },
      ]),
      // The supervisor holds no source permission.
      { call: briefs(), expect: (res) => expect(ids(res)).toEqual([]), supervisor: true },
    ]);
  });

  it("GET /api/accounts, beside reads of one account each: every account with its own number of users", async () => {
    const expectListed = (res: CallResult) => {
      const listed = new Map(res.json.content.map((a: { id: string; numberOfUsers: number }) => [a.id, a.numberOfUsers]));
      for (const { account } of worlds) expect(listed.get(account.id)).toBe(3);
      const names = res.json.content.map((a: { name: string }) => a.name);
      expect(names).toEqual([...names].sort());
    };
    await expectEachOwn([
      ...worlds.map(() => ({ call: () => call("GET", "/api/accounts"), expect: expectListed, supervisor: true as const })),
      ...worlds.map(({ account }) => ({ call: () => call("GET", `/api/accounts/${account.id}`), expect: (res: CallResult) => expect(res.json.id).toBe(account.id), supervisor: true as const })),
    ]);
  });
});

// The reads of a calendar, the calendar list, a field and a trusted-access client, each compiled once
// per isolate (one template per kind of scope where the scope shapes the SQL): the same template
// serves requests of different accounts at once, each with its own values.
describe("calendar, field and client reads compiled once per isolate", () => {
  it("answer interleaved requests of different accounts each with its own rows, another account's calendar or field not found", async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => createAccount()));
    const admins = await Promise.all(accounts.map((a) => createUser(a.id, { groups: ["Users", "Administrators"], roles: ["ROLE_ADMINISTER_CALENDARS"] })));
    // Account i's calendar shifts its year by i + 1 months: its periods tell it from the others'.
    const calendars = await Promise.all(admins.map((admin, i) => createCalendar(admin, monthShiftCalendar(`Shift ${i + 1}`, i + 1))));
    const sources = await Promise.all(admins.map((admin) => createMetricSource(admin)));
    const clients: { client_id: string; client_name: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await call("POST", "/api/trusted-access/clients", { body: { client_name: `compiled ${accounts[i]!.name}`, access_token_validity_seconds: 60 + i } });
      expect(created.status, created.text).toBe(201);
      clients.push(created.json);
    }
    // Each admin signs in first (a cold sign-in reads the user: a round trip of its own).
    for (const admin of admins) await call("GET", "/api/user", { as: as(admin) });

    const other = (i: number) => (i + 1) % accounts.length;
    const requests = admins.flatMap((admin, i) => [
      { kind: "calendar", i, send: () => call("GET", calendarPath(calendars[i]!.id), { as: as(admin) }) },
      { kind: "list", i, send: () => call("GET", calendarsPath, { as: as(admin) }) },
      { kind: "periods", i, send: () => call("GET", `${calendarPath(calendars[i]!.id)}/periods?from=2026-01-15&to=2026-01-15&type=YEAR`, { as: as(admin) }) },
      { kind: "field", i, send: () => call("GET", `/api/sources/${sources[i]!.id}/fields/price`, { as: as(admin) }) },
      { kind: "other's calendar", i, send: () => call("GET", calendarPath(calendars[other(i)]!.id), { as: as(admin) }) },
      { kind: "other's field", i, send: () => call("GET", `/api/sources/${sources[other(i)]!.id}/fields/price`, { as: as(admin) }) },
    ]);
    const clientReads = clients.map((client, i) => ({ kind: "client", i, send: () => call("GET", `/api/trusted-access/clients/${client.client_id}`) }));
    // Interleaved: each kind of request for one account after another, all started before any answers.
    const kinds = [...new Set(requests.map((r) => r.kind))];
    const interleaved = [...kinds.flatMap((kind) => requests.filter((r) => r.kind === kind)), ...clientReads];
    const answers = await Promise.all(interleaved.map((r) => r.send()));

    answers.forEach((res, n) => {
      const { kind, i } = interleaved[n]!;
      const what = `${kind} of ${i}`;
      expect(res.headers.get("X-D1-Round-Trips"), what).toBe("1");
      switch (kind) {
        case "calendar":
          expect(res.status, what).toBe(200);
          expect(res.json, what).toEqual(calendars[i]);
          break;
        case "list":
          expect(res.json.content, what).toEqual([calendars[i]]);
          break;
        case "periods":
          // A year shifted by i + 1 months starts on the first of month i + 2 of the year before, and is named after the year it ends in.
          expect(res.json.content.map((p: { name: string; start: string }) => `${p.name} ${p.start}`), what).toEqual([`FY2026 2025-${String(i + 2).padStart(2, "0")}-01`]);
          break;
        case "field":
          expect(res.status, what).toBe(200);
          expect(res.json, what).toMatchObject({ name: "price", createdByUserID: admins[i]!.id });
          break;
        case "client":
          expect(res.status, what).toBe(200);
          expect(res.json, what).toMatchObject({ client_id: clients[i]!.client_id, client_name: clients[i]!.client_name, access_token_validity_seconds: 60 + i });
          break;
        default:
          expect(res.status, what).toBe(404);
      }
    });
  });
});

describe("a connection's write and the quota guard, compiled once per isolate", () => {
  it("store each of many interleaved creates and updates in different accounts with its own values, under each account's own quota", async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => createAccount()));
    const managers = await Promise.all(accounts.map((a) => createUser(a.id, { roles: ["ROLE_MANAGE_CONNECTIONS"] })));
    // Account i may hold i + 1 connections: the guard counts each account's own.
    for (const [i, account] of accounts.entries()) {
      expect((await call("PUT", "/api/quota", { body: { accountId: account.id, quotas: [{ type: "CONNECTION", limit: i + 1 }] } })).status).toBeLessThan(300);
    }
    const created = await Promise.all(managers.map((m, i) => call("POST", "/api/connections", { as: as(m), body: connectionBody(`Store ${i}`) })));
    created.forEach((res) => expect(res.status, res.text).toBe(201));
    // A second connection: refused only where the quota is 1 (account 0).
    const second = await Promise.all(managers.map((m, i) => call("POST", "/api/connections", { as: as(m), body: connectionBody(`Second ${i}`) })));
    second.forEach((res, i) => expect(res.status, res.text).toBe(i === 0 ? 409 : 201));
    // Updates, half with If-Match: each lands on its own connection, with its own name and disabled flag.
    const updated = await Promise.all(
      managers.map((m, i) =>
        call("PUT", `/api/connections/${created[i]!.json.id}`, {
          as: as(m),
          body: connectionBody(`Renamed ${i}`, { disabled: i % 2 === 1 }),
          headers: i % 2 ? { "If-Match": created[i]!.headers.get("ETag")! } : {},
        }),
      ),
    );
    updated.forEach((res) => expect(res.status, res.text).toBe(200));
    const read = await Promise.all(managers.map((m, i) => call("GET", `/api/connections/${created[i]!.json.id}`, { as: as(m) })));
    read.forEach((res, i) => expect(res.json).toMatchObject({ name: `Renamed ${i}`, disabled: i % 2 === 1 }));
    // A stale If-Match misses; another account's connection is not found.
    const stale = await call("PUT", `/api/connections/${created[1]!.json.id}`, { as: as(managers[1]!), body: connectionBody("Stale"), headers: { "If-Match": created[1]!.headers.get("ETag")! } });
    expect(stale.status).toBe(412);
    expect((await call("GET", `/api/connections/${created[1]!.json.id}`, { as: as(managers[0]!) })).status).toBe(404);
  });
});

describe("a connection write's candidate types, compiled once per isolate for each strategy", () => {
  it("match each of many interleaved writes of different accounts to the type available to its own account, by id or by type", async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => createAccount()));
    const managers = await Promise.all(accounts.map((a) => createUser(a.id, { roles: ["ROLE_MANAGE_CONNECTIONS"] })));
    // A type of its own kind, available to accounts 0 and 2 only.
    const kind = unique("KIND").toUpperCase();
    const type = await call("POST", "/api/connection/types", { body: { connectorId: "postgresql", name: unique("Restricted"), type: kind, subStorageType: "PG" } });
    expect(type.status, type.text).toBe(201);
    expect((await call("PUT", `/api/connection/types/${type.json.id}/accounts`, { body: [accounts[0]!.id, accounts[2]!.id] })).status).toBe(200);
    const mayUse = (i: number) => i % 2 === 0;
    const writes = managers.flatMap((m, i) => [
      { i, how: "id", send: () => call("POST", "/api/connections", { as: as(m), body: connectionBody(unique(`ById${i}`), { connectionTypeId: type.json.id }) }) },
      { i, how: "type", send: () => call("POST", "/api/connections", { as: as(m), body: { name: unique(`ByKind${i}`), type: kind, subStorageType: "PG", allParameters: connectionBody("").allParameters } }) },
      { i, how: "default", send: () => call("POST", "/api/connections", { as: as(m), body: connectionBody(unique(`Default${i}`)) }) },
    ]);
    const answers = await Promise.all(writes.map((w) => w.send()));
    answers.forEach((res, n) => {
      const { i, how } = writes[n]!;
      if (how === "default") return expect(res.json.connectionTypeId, res.text).toBe("postgresql");
      if (mayUse(i)) return expect(res.json.connectionTypeId, res.text).toBe(type.json.id);
      expectError(res, 400, "VALIDATION_FAILED", [how === "id" ? "body.connectionTypeId" : "body.type"]);
    });
  });
});

describe("keyset lists compiled once per isolate for each page shape", () => {
  it("page each of several accounts' groups forwards and back, interleaved, each through its own rows", async () => {
    const accounts = await Promise.all(Array.from({ length: 3 }, () => createAccount()));
    const names = accounts.map((_, i) => [`g${i}-a`, `g${i}-b`, `g${i}-c`]);
    await Promise.all(accounts.flatMap((a, i) => names[i]!.map((name) => createGroup(a.id, name))));
    const page = (i: number, token?: string) => call("GET", `/api/groups?accountId=${accounts[i]!.id}&maxResults=1${token ? `&pageToken=${token}` : ""}`);
    const own = (i: number, res: CallResult) => res.json.content.map((g: { name: string }) => g.name).filter((n: string) => n.startsWith(`g${i}-`) || !n.startsWith("g"));
    // Each account's built-in groups come first by name; walk to the first of the test's own.
    const walk = await Promise.all(
      accounts.map(async (_, i) => {
        let res = await page(i);
        while (!res.json.content[0].name.startsWith(`g${i}-`)) res = await page(i, res.json.pageInfo.nextPageToken);
        const next = await page(i, res.json.pageInfo.nextPageToken);
        const back = await page(i, next.json.pageInfo.previousPageToken);
        return [res, next, back];
      }),
    );
    walk.forEach(([first, next, back], i) => {
      expect(own(i, first!)).toEqual([names[i]![0]]);
      expect(own(i, next!)).toEqual([names[i]![1]]);
      expect(own(i, back!)).toEqual([names[i]![0]]);
    });
    // Another account's token is not a token of this list.
    expect((await page(1, walk[0]![0]!.json.pageInfo.nextPageToken)).status).toBe(400);
  });
});

// The trusted-access writes compiled once per isolate: interleaved requests for different clients,
// accounts and users each write their own values, never another request's.
describe("trusted-access writes compiled once per isolate", () => {
  const CLIENTS = "/api/trusted-access/clients";

  it("create several clients at once, each with its own name, validity and accounts", async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => createAccount()));
    const bodies = accounts.map((account, i) => ({
      client_name: unique(`interleaved-${i}`),
      access_token_validity_seconds: 100 + i,
      client_secret_expires_at: i % 2 ? 0 : 4_000_000_000 + i,
      // Half restricted to their own account, half unrestricted (stored as SQL NULL).
      ...(i % 2 ? { account_ids: [account.id] } : {}),
    }));
    const created = await Promise.all(bodies.map((body) => call("POST", CLIENTS, { body })));
    for (const [i, res] of created.entries()) {
      expect(res.status, res.text).toBe(201);
      const expected = {
        client_name: bodies[i]!.client_name,
        access_token_validity_seconds: 100 + i,
        client_secret_expires_at: bodies[i]!.client_secret_expires_at,
        account_ids: i % 2 ? [accounts[i]!.id] : null,
      };
      expect(res.json, `client ${i}`).toMatchObject(expected);
      expect((await call("GET", `${CLIENTS}/${res.json.client_id}`)).json, `client ${i}`).toMatchObject(expected);
      const row = await env.DB.prepare("SELECT secret_digest, account_ids FROM trusted_access_clients WHERE client_id = ?").bind(res.json.client_id).first<Record<string, unknown>>();
      expect(row, `client ${i}`).toEqual({ secret_digest: await sha256Hex(res.json.client_secret), account_ids: i % 2 ? JSON.stringify([accounts[i]!.id]) : null });
    }
  });

  it("push tokens for several users of several accounts at once: each user gets its own profile, groups, attributes and token", async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => createAccount()));
    // Users of accounts 1 and 3 exist already; those of 0 and 2 are new.
    const existing = await Promise.all(accounts.map((a, i) => (i % 2 ? createUser(a.id, { groups: ["Users"] }) : undefined)));
    // One client serves every account, the other those listed (their batches check them differently).
    const everywhere = await createClient();
    const listed = await createClient({ account_ids: accounts.map((a) => a.id) });
    const usernames = accounts.map((_, i) => existing[i]?.username ?? unique(`pushed-${i}`));
    const bodies = accounts.map((account, i) => ({
      username: usernames[i],
      account: account.name,
      fullname: `Person ${i}`,
      // Profile members sent differ by user: the email of users 0 and 1 only.
      ...(i < 2 ? { email: `person${i}@example.test` } : {}),
      groups: i < 2 ? ["Users"] : ["Users", "Administrators"],
      attributes: [{ key: "n", values: [String(i)] }],
    }));
    const pushed = await Promise.all(bodies.map((body, i) => pushToken((i % 2 ? listed : everywhere).credentials, body)));
    for (const [i, res] of pushed.entries()) {
      expect(res.status, res.text).toBe(200);
      const me = await call("GET", "/api/user", { as: { bearer: res.json.access_token } });
      expect(me.status, me.text).toBe(200);
      expect(me.json, `user ${i}`).toMatchObject({ name: usernames[i] });
      const list = await call("GET", `/api/users?accountId=${accounts[i]!.id}&maxResults=1000`);
      const user = list.json.content.find((u: { name: string }) => u.name === usernames[i]);
      expect(user, `user ${i}`).toMatchObject({ fullName: `Person ${i}`, email: i < 2 ? `person${i}@example.test` : null, groups: bodies[i]!.groups.toSorted() });
      expect(await allEverywhere("SELECT attribute_key AS k, attribute_values AS v FROM user_attributes WHERE user_id = ?", user.id), `user ${i}`).toEqual([{ k: "n", v: JSON.stringify([String(i)]) }]);
      expect(await allEverywhere("SELECT user_id AS u, account_id AS a, client_id AS c FROM access_tokens WHERE token_id = ?", res.json.token_id), `user ${i}`).toEqual([
        { u: user.id, a: accounts[i]!.id, c: (i % 2 ? listed : everywhere).clientId },
      ]);
    }
  });

  it("pull tokens for several users of several accounts at once: each token is its user's, and each refusal its own", async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => createAccount()));
    const users = await Promise.all(accounts.map((a) => createUser(a.id)));
    // One client serves every account, the other those listed (their batches check them differently).
    const everywhere = await createClient();
    const listed = await createClient({ account_ids: accounts.map((a) => a.id) });
    const clientOf = (i: number) => (i % 2 ? listed : everywhere);
    // Users 0 and 1 name their account (another template), 2 and 3 do not; each is refused once:
    // a pull that names another user's account, and one for a name no user has.
    const pulls = users.flatMap((user, i) => [
      pullToken(clientOf(i).credentials, i < 2 ? { username: user.username, account: accounts[i]!.name } : { username: user.username }),
      pullToken(clientOf(i).credentials, { username: user.username, account: accounts[(i + 1) % 4]!.name }, { "CF-Connecting-IP": `203.0.113.${140 + i}` }),
      pullToken(clientOf(i).credentials, { username: unique(`nobody-${i}`) }, { "CF-Connecting-IP": `203.0.113.${150 + i}` }),
    ]);
    const answers = await Promise.all(pulls);
    for (const [i, user] of users.entries()) {
      const [issued, otherAccount, nobody] = answers.slice(3 * i, 3 * i + 3);
      expect(issued!.status, issued!.text).toBe(200);
      const me = await call("GET", "/api/user", { as: { bearer: issued!.json.access_token } });
      expect(me.json, `user ${i}`).toMatchObject({ name: user.username });
      expect(await allEverywhere("SELECT user_id AS u, account_id AS a, client_id AS c FROM access_tokens WHERE token_id = ?", issued!.json.token_id), `user ${i}`).toEqual([
        { u: user.id, a: accounts[i]!.id, c: clientOf(i).clientId },
      ]);
      expect(otherAccount!.status, `user ${i}: ${otherAccount!.text}`).toBe(400);
      expect(otherAccount!.json.error, `user ${i}`).toBe("invalid_grant");
      expect(nobody!.status, `user ${i}: ${nobody!.text}`).toBe(400);
      expect(nobody!.json.error_description, `user ${i}`).toContain("nobody-");
    }
    // One token per user, none for a refusal.
    for (const [i, user] of users.entries()) expect(await allEverywhere("SELECT token_id AS t FROM access_tokens WHERE user_id = ?", user.id), `user ${i}`).toEqual([{ t: answers[3 * i]!.json.token_id }]);
  });

  it("update several clients at once, each changing its own members", async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => createAccount()));
    const created = await Promise.all(accounts.map((a) => createClient({ account_ids: [a.id], access_token_validity_seconds: 50 })));
    const etags = await Promise.all(created.map(async (client) => (await call("GET", `${CLIENTS}/${client.clientId}`)).headers.get("ETag")!));
    // Each sends other members: a new name, a validity, its accounts widened or lifted; half with If-Match.
    const bodies = accounts.map((_, i) => [
      { client_name: unique(`renamed-${i}`) },
      { access_token_validity_seconds: 70 + i },
      { account_ids: [accounts[i]!.id, accounts[(i + 1) % 4]!.id], client_secret_expires_at: 4_000_000_000 + i },
      { account_ids: null, access_token_validity_seconds: 90 + i },
    ][i]!);
    const updated = await Promise.all(
      created.map((client, i) => call("PATCH", `${CLIENTS}/${client.clientId}`, { body: bodies[i], headers: i % 2 ? { "If-Match": etags[i]! } : undefined })),
    );
    for (const [i, res] of updated.entries()) {
      expect(res.status, res.text).toBe(200);
      const expected = { client_id: created[i]!.clientId, access_token_validity_seconds: 50, account_ids: [accounts[i]!.id], ...bodies[i] };
      expect(res.json, `client ${i}`).toMatchObject(expected);
      expect((await call("GET", `${CLIENTS}/${created[i]!.clientId}`)).json, `client ${i}`).toMatchObject(expected);
      const row = await env.DB.prepare("SELECT account_ids FROM trusted_access_clients WHERE client_id = ?").bind(created[i]!.clientId).first<{ account_ids: string | null }>();
      expect(row!.account_ids, `client ${i}`).toBe(expected.account_ids === null ? null : JSON.stringify(expected.account_ids));
    }
  });

  it("rotate the secrets of several clients at once: each new secret authenticates its own client only", async () => {
    const account = await createAccount();
    const user = await createUser(account.id);
    const clients = await Promise.all(Array.from({ length: 4 }, () => createClient()));
    const etags = await Promise.all(clients.map(async (client) => (await call("GET", `${CLIENTS}/${client.clientId}`)).headers.get("ETag")!));
    // Half with a grace period (the old secret keeps working), half with If-Match.
    const rotated = await Promise.all(
      clients.map((client, i) =>
        call("POST", `${CLIENTS}/${client.clientId}/secret`, {
          body: { grace_period_seconds: i % 2 ? 0 : 3600, client_secret_expires_at: 4_000_000_000 + i },
          headers: i < 2 ? { "If-Match": etags[i]! } : undefined,
        }),
      ),
    );
    for (const [i, res] of rotated.entries()) {
      expect(res.status, res.text).toBe(200);
      expect(res.json, `client ${i}`).toMatchObject({ client_id: clients[i]!.clientId, client_secret_expires_at: 4_000_000_000 + i, previous_client_secret_expires_at: i % 2 ? null : expect.any(Number) });
      const row = await env.DB.prepare("SELECT secret_digest, previous_secret_digest, revision FROM trusted_access_clients WHERE client_id = ?").bind(clients[i]!.clientId).first<Record<string, unknown>>();
      expect(row, `client ${i}`).toEqual({
        secret_digest: await sha256Hex(res.json.client_secret),
        previous_secret_digest: i % 2 ? null : await sha256Hex(clients[i]!.clientSecret),
        revision: res.headers.get("ETag")!.slice(1, -1),
      });
    }
    // Each new secret signs in its own client; the next client's refuses it.
    for (const [i, res] of rotated.entries()) {
      const own = await pullToken({ username: clients[i]!.clientId, password: res.json.client_secret }, { username: user.username });
      expect(own.status, own.text).toBe(200);
      const other = clients[(i + 1) % clients.length]!;
      const refused = await pullToken({ username: other.clientId, password: res.json.client_secret }, { username: user.username }, { "CF-Connecting-IP": `203.0.113.${120 + i}` });
      expect(refused.status, refused.text).toBe(401);
    }
  });
});

// A materialized view's GET, create and PUT run statements compiled once per isolate (its reads,
// the definition's checks, the limit guard, the insert and the update), as does the PATCH that shows
// or hides a field or custom metric: interleaved requests of different accounts each read and store
// their own values.
describe("materialized-view reads and writes, and item visibility, compiled once per isolate", () => {
  it("answer and store each of many interleaved GETs, creates and PUTs of different accounts with its own values", async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => createAccount()));
    const admins = await Promise.all(accounts.map((a) => createUser(a.id, { groups: ["Users", "Administrators"] })));
    // Account i: a connection, a source reading through it in odd accounts (PostgreSQL) or none in even
    // ones (ANSI), a definition whose metric is named after i, a target connection in odd accounts
    // only; a view to read and one to replace (with If-Match in even accounts).
    const worldOf = async (admin: TestUser, i: number) => {
      const connection = await createConnection(admin, connectionBody(unique(`Views ${i}`)));
      const source = await createOrdersSource(admin, i % 2 === 1 ? { connectionId: connection.id } : {});
      const definition = { metrics: [{ formulaName: `total_${i}`, formula: "SUM(amount)" }] };
      const storageSettings = i % 2 === 1 ? { targetStorage: { connectionId: connection.id } } : null;
      const read = await createView(admin, viewBody(source.id, definition, { description: `Read ${i}`, storageSettings }));
      const replaced = await createView(admin, viewBody(source.id));
      const etag = (await call("GET", `${VIEWS}/${replaced.id}`, { as: as(admin) })).headers.get("ETag")!;
      return { admin, connection, source, definition, storageSettings, read, replaced, etag };
    };
    const worlds: Awaited<ReturnType<typeof worldOf>>[] = [];
    for (const [i, admin] of admins.entries()) worlds.push(await worldOf(admin, i));
    const other = (i: number) => worlds[(i + 1) % worlds.length]!;
    const requests = worlds.flatMap((w, i) => [
      { kind: "get", i, send: () => call("GET", `${VIEWS}/${w.read.id}`, { as: as(w.admin) }) },
      { kind: "other's", i, send: () => call("GET", `${VIEWS}/${other(i).read.id}`, { as: as(w.admin) }) },
      {
        kind: "put",
        i,
        send: () =>
          call("PUT", `${VIEWS}/${w.replaced.id}`, {
            as: as(w.admin),
            body: viewBody(w.source.id, w.definition, { name: `Replaced ${i} ${w.replaced.name}`, description: `Put ${i}`, storageSettings: w.storageSettings }),
            headers: i % 2 === 0 ? { "If-Match": w.etag } : {},
          }),
      },
      { kind: "post", i, send: () => call("POST", VIEWS, { as: as(w.admin), body: viewBody(w.source.id, w.definition, { description: `Post ${i}`, storageSettings: w.storageSettings }) }) },
    ]);
    const kinds = [...new Set(requests.map((r) => r.kind))];
    const interleaved = kinds.flatMap((kind) => requests.filter((r) => r.kind === kind));
    const answers = await Promise.all(interleaved.map((r) => r.send()));

    const written: { id: string; i: number }[] = [];
    answers.forEach((res, n) => {
      const { kind, i } = interleaved[n]!;
      const w = worlds[i]!;
      const what = `${kind} of ${i}: ${res.text.slice(0, 300)}`;
      if (kind === "other's") return expect(res.status, what).toBe(404);
      expect(res.status, what).toBe(200);
      if (kind === "get") {
        expect(res.json, what).toEqual(w.read);
        expect(res.headers.get("X-D1-Round-Trips"), what).toBe("1");
        return;
      }
      // The same definition on the same source: the SQL the sequential create generated, in the source's dialect.
      expect(res.json, what).toMatchObject({
        description: kind === "put" ? `Put ${i}` : `Post ${i}`,
        definition: { sourceId: w.source.id, metrics: w.definition.metrics },
        storageSettings: w.read.storageSettings,
        definitionQuery: w.read.definitionQuery,
        lastModifiedByUserID: w.admin.id,
      });
      expect(res.json.definitionQuery, what).toContain(`total_${i}`);
      if (kind === "put") expect(res.json, what).toMatchObject({ id: w.replaced.id, name: `Replaced ${i} ${w.replaced.name}` });
      written.push({ id: res.json.id, i });
    });
    expect(written).toHaveLength(2 * worlds.length);

    // As stored: each in its own account, on its own source, with its target connection, or storage_settings NULL.
    for (const { id, i } of written) {
      const w = worlds[i]!;
      const rows: Record<string, unknown>[] = [];
      for (const [, database] of databases()) {
        const found = await database.prepare("SELECT account_id, source_id, storage_settings, target_connection_id FROM materialized_views WHERE id = ?").bind(id).all();
        rows.push(...found.results);
      }
      // Without storageSettings the column is NULL, not the JSON text 'null'.
      const stored = rows.map((row) => ({ ...row, storage_settings: row.storage_settings === null ? null : JSON.parse(String(row.storage_settings)) }));
      expect(rows.map((row) => row.storage_settings === null)).toEqual([w.storageSettings === null]);
      expect(stored, `view ${id} of ${i}`).toEqual([
        { account_id: accounts[i]!.id, source_id: w.source.id, storage_settings: w.read.storageSettings, target_connection_id: w.storageSettings === null ? null : w.connection.id },
      ]);
    }
  });

  it("show or hide each of many interleaved fields and custom metrics of different accounts, with or without If-Match, as its own", async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => createAccount()));
    const admins = await Promise.all(accounts.map((a) => createUser(a.id, { groups: ["Users", "Administrators"] })));
    const sources = await Promise.all(admins.map((admin) => createMetricSource(admin)));
    // Account i's metric multiplies by i + 1: its expression tells it from the others'.
    for (const [i, admin] of admins.entries()) expect((await putMetric(admin, sources[i]!.id, "scaled", { expression: `SUM(price) * ${i + 1}` })).status).toBe(201);
    const fieldPath = (i: number) => `${sourcePath(sources[i]!.id)}/fields/price`;
    const paths = { field: fieldPath, metric: (i: number) => metricPath(sources[i]!.id, "scaled") };
    const before = new Map<string, CallResult>();
    for (const [i, admin] of admins.entries()) for (const [kind, path] of Object.entries(paths)) before.set(`${kind} ${i}`, await call("GET", path(i), { as: as(admin) }));

    // Even accounts hide, odd ones keep visible; If-Match on the field of even accounts and the metric of odd ones.
    const requests = (["field", "metric"] as const).flatMap((kind) =>
      admins.map((admin, i) => {
        const ifMatch: Record<string, string> = (kind === "field") === (i % 2 === 0) ? { "If-Match": before.get(`${kind} ${i}`)!.headers.get("ETag")! } : {};
        return { kind, i, send: () => call("PATCH", paths[kind](i), { as: as(admin), body: { visible: i % 2 === 1 }, headers: ifMatch }) };
      }),
    );
    const answers = await Promise.all(requests.map((r) => r.send()));
    for (const [n, res] of answers.entries()) {
      const { kind, i } = requests[n]!;
      const what = `${kind} of ${i}: ${res.text.slice(0, 300)}`;
      const read = before.get(`${kind} ${i}`)!;
      expect(res.status, what).toBe(200);
      expect(res.json, what).toEqual({ ...read.json, visible: i % 2 === 1, lastModifiedDate: res.json.lastModifiedDate });
      expect(res.headers.get("ETag"), what).not.toBe(read.headers.get("ETag"));
      const after = await call("GET", paths[kind](i), { as: as(admins[i]!) });
      expect({ json: after.json, etag: after.headers.get("ETag") }, what).toEqual({ json: res.json, etag: res.headers.get("ETag") });
    }
  });
});
