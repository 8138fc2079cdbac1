import { describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, ROUTING_TRIPS } from "./helpers";
import { createMetricSource, metricPath, putMetric } from "./metric-helpers";
import { calendarPath, calendarsPath, createCalendar, monthShiftCalendar } from "./calendar-helpers";

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
