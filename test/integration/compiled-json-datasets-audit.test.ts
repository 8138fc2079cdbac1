import { beforeAll, describe, expect, it } from "vitest";
import { rawMemberText } from "../../src/domain/raw-json";
import { as, call, createAccount, createUser, databaseOf, expectError, VENDOR_JSON, type CallResult, type TestUser } from "./helpers";

// The statements of the JSON dataset writes and of the audit trail's reads, compiled once per
// isolate (src/db/compiled.ts): requests of four accounts interleaved, each with its own values
// and shapes, each answered and stored with its own.
const roundTrips = (res: CallResult) => Number(res.headers.get("X-D1-Round-Trips"));
const send = (method: string, path: string, admin: TestUser, members: Record<string, string>, headers: Record<string, string> = {}) =>
  call(method, path, { as: as(admin), rawBody: `{${Object.entries(members).map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`, headers: { "Content-Type": VENDOR_JSON, ...headers } });

let accounts: { id: string; name: string }[];
let admins: TestUser[];

beforeAll(async () => {
  accounts = await Promise.all(Array.from({ length: 4 }, () => createAccount()));
  admins = await Promise.all(accounts.map((a) => createUser(a.id, { groups: ["Users", "Administrators"] })));
  // Signed in once each: the round trips below are the routes' own.
  for (const admin of admins) expect((await call("GET", "/api/json-datasets", { as: as(admin) })).status).toBe(200);
});

describe("JSON dataset writes, compiled once per isolate", () => {
  it("create, update (each set of members, with and without If-Match) and delete each dataset with its own values", async () => {
    const data = (i: number, version: string) => `{"account": ${i}, "version": "${version}", "pad": "${"x".repeat(10 * i)}"}`;
    const created = await Promise.all(admins.map((admin, i) => send("POST", "/api/json-datasets", admin, { name: `"set-${i}"`, description: `"about ${i}"`, data: data(i, "a") })));
    created.forEach((res, i) => {
      expect(res.status, res.text).toBe(201);
      expect(res.json.accountId).toBe(accounts[i]!.id);
      expect([res.json.name, res.json.description, rawMemberText(res.text, "data")]).toEqual([`set-${i}`, `about ${i}`, data(i, "a")]);
    });
    const ids = created.map((res) => res.json.id as string);
    // Four shapes at once: name only; a description, with If-Match; data, with If-Match; data and a null description.
    const updates: Record<string, string>[] = [{}, { description: `"now ${1}"` }, { data: data(2, "b") }, { description: "null", data: data(3, "b") }];
    const updated = await Promise.all(
      admins.map((admin, i) =>
        send("PUT", `/api/json-datasets/${ids[i]}`, admin, { name: `"renamed-${i}"`, ...updates[i] }, i === 1 || i === 2 ? { "If-Match": created[i]!.headers.get("ETag")! } : {}),
      ),
    );
    const expected = [
      ["renamed-0", "about 0", data(0, "a")],
      ["renamed-1", "now 1", data(1, "a")],
      ["renamed-2", "about 2", data(2, "b")],
      ["renamed-3", null, data(3, "b")],
    ];
    updated.forEach((res, i) => {
      expect(res.status, res.text).toBe(200);
      expect([res.json.name, res.json.description, rawMemberText(res.text, "data")]).toEqual(expected[i]);
      expect(roundTrips(res)).toBe(1);
    });
    for (const [i, account] of accounts.entries()) {
      const stored = await (await databaseOf(account.id))
        .prepare(
          `SELECT name, description, data_bytes AS bytes, revision,
             (SELECT group_concat(data, '') FROM json_dataset_chunks c WHERE c.dataset_id = d.id) AS data,
             (SELECT count(*) FROM json_dataset_chunks c WHERE c.dataset_id = d.id) AS chunks
           FROM json_datasets d WHERE account_id = ?`,
        )
        .bind(account.id)
        .all<{ name: string; description: string | null; bytes: number; revision: string; data: string; chunks: number }>();
      expect(stored.results).toEqual([
        { name: expected[i]![0], description: expected[i]![1], bytes: expected[i]![2]!.length, revision: updated[i]!.headers.get("ETag")!.replaceAll('"', ""), data: expected[i]![2], chunks: 1 },
      ]);
    }
    // A stale If-Match misses (412), another account's dataset is not found (404), on update and delete.
    expectError(await send("PUT", `/api/json-datasets/${ids[1]}`, admins[1]!, { name: '"late"' }, { "If-Match": created[1]!.headers.get("ETag")! }), 412, "PRECONDITION_FAILED");
    expectError(await send("PUT", `/api/json-datasets/${ids[1]}`, admins[0]!, { name: '"theirs"', data: "{}" }), 404, "NOT_FOUND");
    expectError(await call("DELETE", `/api/json-datasets/${ids[2]}`, { as: as(admins[2]!), headers: { "If-Match": created[2]!.headers.get("ETag")! } }), 412, "PRECONDITION_FAILED");
    expect((await call("DELETE", `/api/json-datasets/${ids[2]}`, { as: as(admins[3]!) })).status).toBe(404);
    // Deletes at once, one with the current If-Match: each removes its own dataset and its chunks only.
    const deleted = await Promise.all(
      admins.slice(0, 3).map((admin, i) => call("DELETE", `/api/json-datasets/${ids[i]}`, { as: as(admin), headers: i % 2 ? { "If-Match": updated[i]!.headers.get("ETag")! } : {} })),
    );
    deleted.forEach((res) => expect(res.status, res.text).toBe(204));
    for (const [i, account] of accounts.entries()) {
      const db = await databaseOf(account.id);
      const left = await db
        .prepare("SELECT (SELECT count(*) FROM json_datasets WHERE account_id = ?1) AS datasets, (SELECT count(*) FROM json_dataset_chunks WHERE account_id = ?1) AS chunks")
        .bind(account.id)
        .first();
      expect(left).toEqual(i === 3 ? { datasets: 1, chunks: 1 } : { datasets: 0, chunks: 0 });
    }
  });

  it("refuse an update that grows past its own account's FILE_SIZE quota only", async () => {
    const ofBytes = (bytes: number) => `{"v":"${"y".repeat(bytes - 8)}"}`;
    // Account i's limit is 1,000 * (i + 1) bytes; each dataset starts at 500 bytes.
    for (const [i, account] of accounts.entries()) {
      const res = await call("PUT", "/api/quota", { body: { accountId: account.id, quotas: [{ type: "FILE_SIZE", limit: 1_000 * (i + 1) }] } });
      expect(res.status).toBeLessThan(300);
    }
    const created = await Promise.all(admins.map((admin, i) => send("POST", "/api/json-datasets", admin, { name: `"quota-${i}"`, data: ofBytes(500) })));
    created.forEach((res) => expect(res.status, res.text).toBe(201));
    // Each grows to 1,500 bytes: past account 0's limit, within the others'.
    const grown = await Promise.all(admins.map((admin, i) => send("PUT", `/api/json-datasets/${created[i]!.json.id}`, admin, { name: `"quota-${i}"`, data: ofBytes(1_500) })));
    expectError(grown[0]!, 409, "QUOTA_EXCEEDED");
    grown.slice(1).forEach((res) => expect(res.status, res.text).toBe(200));
    const consumption = await Promise.all(accounts.map(async (a) => (await call("GET", `/api/quota/${a.id}`)).json.quotas[0].consumption));
    // Account 3 still holds the dataset the first case left (its size is its data's).
    expect(consumption.slice(0, 3)).toEqual([500, 1_500, 1_500]);
  });
});

describe("the audit trail's reads, compiled once per isolate", () => {
  /** Account i's events: i + 2 datasets created, then the first renamed. */
  let datasetIds: string[][];

  beforeAll(async () => {
    datasetIds = await Promise.all(
      admins.map(async (admin, i) => {
        const ids: string[] = [];
        for (let n = 0; n < i + 2; n++) {
          const res = await send("POST", "/api/json-datasets", admin, { name: `"audited-${n}"`, data: "{}" });
          expect(res.status, res.text).toBe(201);
          ids.push(res.json.id);
        }
        expect((await send("PUT", `/api/json-datasets/${ids[0]}`, admin, { name: '"audited-renamed"' })).status).toBe(200);
        return ids;
      }),
    );
  });

  const events = (res: CallResult) => res.json.content as { id: string; accountId: string; action: string; target: { id: string }; actor: { name: string } }[];

  it("list each account's events with its own filters, whichever set of filters each request sends", async () => {
    // Each request of each account at once, every filter shape among them.
    const queries = (i: number) => [
      `action=json-dataset.create&targetType=json-dataset`,
      `action=json-dataset.*`,
      `targetId=${datasetIds[i]![0]}`,
      `actor=${admins[i]!.username}&action=json-dataset.update`,
      `since=2000-01-01T00:00:00Z&until=2999-01-01T00:00:00Z&action=json-dataset.create&maxResults=${i + 1}`,
    ];
    const shapes = queries(0).length;
    const answers = await Promise.all(admins.flatMap((admin, i) => queries(i).map((q) => call("GET", `/api/audit-events?${q}`, { as: as(admin) }))));
    admins.forEach((admin, i) => {
      const [created, all, target, updates, page] = answers.slice(i * shapes, (i + 1) * shapes).map((res) => {
        expect(res.status, res.text).toBe(200);
        expect(roundTrips(res)).toBe(1);
        for (const event of events(res)) expect(event.accountId).toBe(accounts[i]!.id);
        return events(res);
      });
      const mine = new Set(datasetIds[i]);
      expect(created!.filter((e) => mine.has(e.target.id)).map((e) => e.target.id)).toEqual([...datasetIds[i]!].reverse());
      expect(all!.filter((e) => mine.has(e.target.id)).map((e) => e.action)).toEqual(["json-dataset.update", ...datasetIds[i]!.map(() => "json-dataset.create")]);
      expect(target!.map((e) => e.action)).toEqual(["json-dataset.update", "json-dataset.create"]);
      expect(updates!.map((e) => [e.target.id, e.actor.name])).toContainEqual([datasetIds[i]![0], admin.username]);
      expect(page).toHaveLength(i + 1);
      expect(page!.every((e) => e.action === "json-dataset.create")).toBe(true);
    });
    // The supervisor's lists at once: of one account it names, and of every account (every database read) by target.
    const supervisor = await Promise.all(
      accounts.flatMap((account, i) => [call("GET", `/api/audit-events?accountId=${account.id}&action=json-dataset.update`), call("GET", `/api/audit-events?targetId=${datasetIds[i]![1]}`)]),
    );
    accounts.forEach((account, i) => {
      const [named, everywhere] = [supervisor[2 * i]!, supervisor[2 * i + 1]!];
      expect(events(named).map((e) => e.accountId)).toEqual(events(named).map(() => account.id));
      expect(events(named).map((e) => e.target.id)).toContain(datasetIds[i]![0]);
      expect(events(everywhere).map((e) => [e.accountId, e.action, e.target.id])).toEqual([[account.id, "json-dataset.create", datasetIds[i]![1]]]);
    });
    // The next page, at once for every account, continues each one's own list.
    const firsts = await Promise.all(admins.map((admin) => call("GET", "/api/audit-events?action=json-dataset.create&maxResults=1", { as: as(admin) })));
    const nexts = await Promise.all(admins.map((admin, i) => call("GET", `/api/audit-events?action=json-dataset.create&maxResults=1&pageToken=${firsts[i]!.json.pageInfo.nextPageToken}`, { as: as(admin) })));
    nexts.forEach((res, i) => {
      expect(res.status, res.text).toBe(200);
      expect(events(res).map((e) => e.target.id)).toEqual([datasetIds[i]!.at(-2)]);
    });
  });

  it("stream each account's own events as NDJSON, and read each event by id in its own account only", async () => {
    const streams = await Promise.all(
      admins.map((admin, i) => call("GET", `/api/audit-events?targetId=${datasetIds[i]![1]}`, { as: as(admin), headers: { Accept: "application/x-ndjson" } })),
    );
    streams.forEach((res, i) => {
      expect(res.status).toBe(200);
      const lines = res.text.trim().split("\n").map((line) => JSON.parse(line));
      expect(lines.map((l) => [l.api.operation, l.resources[0].uid])).toEqual([["json-dataset.create", datasetIds[i]![1]]]);
    });
    const listed = await Promise.all(admins.map((admin) => call("GET", "/api/audit-events?action=json-dataset.update&maxResults=1", { as: as(admin) })));
    const eventIds = listed.map((res) => events(res)[0]!.id);
    const byId = await Promise.all([
      ...admins.map((admin, i) => call("GET", `/api/audit-events/${eventIds[i]}`, { as: as(admin) })),
      ...admins.map((admin, i) => call("GET", `/api/audit-events/${eventIds[(i + 1) % admins.length]}`, { as: as(admin) })),
      ...eventIds.map((id) => call("GET", `/api/audit-events/${id}`)),
    ]);
    admins.forEach((_, i) => {
      expect(byId[i]!.status, byId[i]!.text).toBe(200);
      expect([byId[i]!.json.id, byId[i]!.json.accountId, byId[i]!.json.target.id]).toEqual([eventIds[i], accounts[i]!.id, datasetIds[i]![0]]);
      // Another account's event: not found.
      expect(byId[admins.length + i]!.status).toBe(404);
      // The supervisor reads every account's.
      expect(byId[2 * admins.length + i]!.json.accountId).toBe(accounts[i]!.id);
    });
  });
});
