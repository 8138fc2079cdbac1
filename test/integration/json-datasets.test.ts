import { beforeAll, describe, expect, it } from "vitest";
import { rawMemberText } from "../../src/domain/raw-json";
import {
  as,
  call,
  createAccount,
  createUser,
  databaseOf,
  databases,
  dbSnapshot,
  expectError,
  SUPERVISOR,
  VENDOR_JSON,
  type CallResult,
  type Credentials,
  type TestUser,
} from "./helpers";

/**
 * JSON datasets: the routes, byte-for-byte storage of `data`, ETags, bad input and tenancy.
 * Sizes, D1's limits and atomicity are in json-datasets-storage.test.ts; the count limit, the
 * FILE_SIZE quota and names under concurrency in json-datasets-limits.test.ts.
 */
let account: { id: string; name: string };
let admin: TestUser;
let reader: TestUser;
let connectionManager: TestUser;
let otherAdmin: TestUser;

beforeAll(async () => {
  account = await createAccount();
  admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
  reader = await createUser(account.id);
  connectionManager = await createUser(account.id, { roles: ["ROLE_MANAGE_CONNECTIONS"] });
  otherAdmin = await createUser((await createAccount()).id, { groups: ["Users", "Administrators"] });
  // Warm the credential cache: the round trips counted below are then the routes' own.
  for (const user of [admin, reader, connectionManager, otherAdmin]) await call("GET", "/api/json-datasets", { as: as(user) });
});

/** Data whose text JSON.parse + JSON.stringify would change: big and trailing-zero numbers, key order, spacing, escapes. */
const TRICKY_DATA = '{ "big": 12345678901234567890, "one": 1.0, "exp": 1E+2, "order": {"z": 1, "a": 2},\n  "text": "é€😀 \\u00e9 \\"q\\"", "list": [ 1 , -0.0 ] }';

/** A body's JSON text from members given as JSON text, so that `data` goes out exactly as written. */
const rawBody = (members: Record<string, string>) => `{${Object.entries(members).map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`;

const send = (method: string, path: string, text: string, who: Credentials = as(admin), headers: Record<string, string> = {}) =>
  call(method, path, { as: who, rawBody: text, headers: { "Content-Type": VENDOR_JSON, ...headers } });

let names = 0;
const freshName = (prefix = "dataset") => `${prefix}-${(names++).toString(36)}`;

async function createDataset(data = '{"rows":[]}', name = freshName(), who: Credentials = as(admin)) {
  const res = await send("POST", "/api/json-datasets", rawBody({ name: JSON.stringify(name), data }), who);
  expect(res.status, res.text).toBe(201);
  return res;
}

const roundTrips = (res: CallResult) => Number(res.headers.get("X-D1-Round-Trips"));
const dataOf = (res: CallResult) => rawMemberText(res.text, "data");

/** A dataset's chunks on every database (each dataset's are on its account's). */
async function chunkRows(datasetId: string) {
  const rows: Record<string, unknown>[] = [];
  for (const [, database] of databases()) rows.push(...(await database.prepare("SELECT version, seq FROM json_dataset_chunks WHERE dataset_id = ? ORDER BY version, seq").bind(datasetId).all()).results);
  return rows;
}

describe("POST and GET: data is stored and answered byte for byte", () => {
  it("creates (201, Location, ETag) and reads back the exact text sent, in one round trip each", async () => {
    const created = await createDataset(TRICKY_DATA, "tricky");
    expect(roundTrips(created)).toBe(1);
    expect(dataOf(created)).toBe(TRICKY_DATA);
    const { id } = created.json;
    expect(created.headers.get("Location")).toBe(`/api/json-datasets/${id}`);
    expect(created.headers.get("ETag")).toMatch(/^"[0-9a-f]{16}"$/);
    expect(created.headers.get("Content-Type")).toBe(VENDOR_JSON);
    expect(created.json).toMatchObject({ id, name: "tricky", description: null, accountId: account.id, createdByUserID: admin.id, lastModifiedByUserID: admin.id });

    const read = await call("GET", `/api/json-datasets/${id}`, { as: as(reader) });
    expect(read.status).toBe(200);
    expect(roundTrips(read)).toBe(1);
    expect(dataOf(read)).toBe(TRICKY_DATA);
    expect(read.text).toBe(created.text);
    expect(read.headers.get("ETag")).toBe(created.headers.get("ETag"));
    // What JSON.parse would have lost is there, as sent.
    expect(read.text).toContain("12345678901234567890");
    expect(read.text).toContain('"one": 1.0');
  });

  it("keeps the stored text when the request spells member names with escapes, or repeats data (the last counts)", async () => {
    const escaped = await send("POST", "/api/json-datasets", `{"n\\u0061me":"escaped","d\\u0061ta": {"a" : 1.50}}`);
    expect(escaped.status, escaped.text).toBe(201);
    expect(dataOf(escaped)).toBe('{"a" : 1.50}');
    const repeated = await send("POST", "/api/json-datasets", `{"data":{"first":1},"name":"repeated","data":{"last":2.0}}`);
    expect(repeated.status, repeated.text).toBe(201);
    expect(dataOf(await call("GET", `/api/json-datasets/${repeated.json.id}`, { as: as(admin) }))).toBe('{"last":2.0}');
  });

  it("stores the FILE_SIZE of a dataset as its data's UTF-8 bytes", async () => {
    const { json } = await createDataset('{"s":"€"}');
    const row = await (await databaseOf(account.id)).prepare("SELECT data_bytes FROM json_datasets WHERE id = ?").bind(json.id).first<{ data_bytes: number }>();
    expect(row!.data_bytes).toBe(new TextEncoder().encode('{"s":"€"}').length);
  });
});

describe("GET /api/json-datasets", () => {
  it("lists the account's datasets by name without their data, paged, in one round trip", async () => {
    const mine = await createAccount();
    const owner = await createUser(mine.id, { groups: ["Users", "Administrators"] });
    for (const name of ["b", "a", "c"]) await createDataset('{"big":"data"}', name, as(owner));
    const first = await call("GET", "/api/json-datasets?maxResults=2", { as: as(owner) });
    expect(first.status).toBe(200);
    expect(roundTrips(first)).toBe(1);
    expect(first.json.content.map((d: { name: string }) => d.name)).toEqual(["a", "b"]);
    for (const item of first.json.content) {
      expect(Object.keys(item).sort()).toEqual(["accountId", "createdByUserID", "createdDate", "description", "id", "lastModifiedByUserID", "lastModifiedDate", "name"]);
    }
    expect(first.text).not.toContain("big");
    const second = await call("GET", `/api/json-datasets?maxResults=2&pageToken=${encodeURIComponent(first.json.pageInfo.nextPageToken)}`, { as: as(owner) });
    expect(second.json.content.map((d: { name: string }) => d.name)).toEqual(["c"]);
    expect(second.json.pageInfo.nextPageToken).toBeNull();
  });

  it("refuses another list's page token", async () => {
    const users = await call("GET", "/api/users?maxResults=1", { as: as(admin) });
    const token = users.json.pageInfo.nextPageToken;
    expectError(await call("GET", `/api/json-datasets?pageToken=${encodeURIComponent(token)}`, { as: as(admin) }), 400, "INVALID_PAGE_TOKEN");
  });
});

describe("E5 PUT /api/json-datasets/{id}", () => {
  it("updates name, description and data (200, new ETag), in one round trip", async () => {
    const created = await createDataset('{"v":1}');
    const { id } = created.json;
    const res = await send("PUT", `/api/json-datasets/${id}`, rawBody({ name: '"renamed"', description: '"about it"', data: TRICKY_DATA }));
    expect(res.status, res.text).toBe(200);
    expect(roundTrips(res)).toBe(1);
    expect(dataOf(res)).toBe(TRICKY_DATA);
    expect(res.json).toMatchObject({ id, name: "renamed", description: "about it", createdDate: created.json.createdDate });
    expect(res.headers.get("ETag")).not.toBe(created.headers.get("ETag"));
    const read = await call("GET", `/api/json-datasets/${id}`, { as: as(admin) });
    expect(read.text).toBe(res.text);
    // The old version's chunks are gone: one version is stored.
    expect(new Set((await chunkRows(id)).map((r) => r.version)).size).toBe(1);
  });

  it("keeps the stored description when omitted, clears it with null", async () => {
    const { json } = await createDataset();
    await send("PUT", `/api/json-datasets/${json.id}`, rawBody({ name: JSON.stringify(json.name), description: '"kept"', data: "{}" }));
    const omitted = await send("PUT", `/api/json-datasets/${json.id}`, rawBody({ name: JSON.stringify(json.name), data: '{"x":1}' }));
    expect(omitted.json.description).toBe("kept");
    const cleared = await send("PUT", `/api/json-datasets/${json.id}`, rawBody({ name: JSON.stringify(json.name), description: "null", data: '{"x":1}' }));
    expect(cleared.json.description).toBeNull();
  });

  it("keeps the stored data when data is omitted, and answers it", async () => {
    const { json } = await createDataset(TRICKY_DATA);
    const res = await send("PUT", `/api/json-datasets/${json.id}`, rawBody({ name: '"only renamed"' }));
    expect(res.status, res.text).toBe(200);
    expect(roundTrips(res)).toBe(1);
    expect(dataOf(res)).toBe(TRICKY_DATA);
    expect(dataOf(await call("GET", `/api/json-datasets/${json.id}`, { as: as(admin) }))).toBe(TRICKY_DATA);
  });

  it("accepts the body's id when it is the path's, and the caller's own accountId; refuses another id", async () => {
    const { json } = await createDataset();
    const same = await call("PUT", `/api/json-datasets/${json.id}`, { as: as(admin), body: { id: json.id, accountId: account.id, name: json.name, data: {} } });
    expect(same.status, same.text).toBe(200);
    const before = await dbSnapshot();
    expectError(await call("PUT", `/api/json-datasets/${json.id}`, { as: as(admin), body: { id: "another", name: json.name, data: {} } }), 400, "ID_MISMATCH", ["body.id"]);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("answers 404 for an unknown id, creating nothing", async () => {
    const before = await dbSnapshot();
    expectError(await call("PUT", `/api/json-datasets/${crypto.randomUUID()}`, { as: as(admin), body: { name: "x", data: { a: 1 } } }), 404, "NOT_FOUND");
    expectError(await call("PUT", `/api/json-datasets/${crypto.randomUUID()}`, { as: as(admin), body: { name: "x" } }), 404, "NOT_FOUND");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("refuses a name taken in the account (409), names being case-sensitive", async () => {
    const taken = await createDataset("{}", "Sales");
    await createDataset("{}", "sales");
    const { json } = await createDataset();
    const before = await dbSnapshot();
    expectError(await call("PUT", `/api/json-datasets/${json.id}`, { as: as(admin), body: { name: "Sales", data: { new: true } } }), 409, "DUPLICATED");
    expectError(await call("POST", "/api/json-datasets", { as: as(admin), body: { name: "Sales", data: {} } }), 409, "DUPLICATED");
    expect(await dbSnapshot()).toEqual(before);
    expect((await call("GET", `/api/json-datasets/${taken.json.id}`, { as: as(admin) })).json.name).toBe("Sales");
  });
});

describe("optimistic locking (If-Match) and conditional GET (If-None-Match)", () => {
  it("PUT and DELETE with a stale, weak or unknown ETag are 412 and change nothing; the current one or * passes", async () => {
    const created = await createDataset('{"v":1}');
    const path = `/api/json-datasets/${created.json.id}`;
    const etag = created.headers.get("ETag")!;
    const updated = await call("PUT", path, { as: as(admin), body: { name: created.json.name, data: { v: 2 } }, headers: { "If-Match": etag } });
    expect(updated.status).toBe(200);
    const before = await dbSnapshot();
    for (const stale of [etag, `W/${updated.headers.get("ETag")}`, '"nope"']) {
      expectError(await call("PUT", path, { as: as(admin), body: { name: "x", data: { v: 3 } }, headers: { "If-Match": stale } }), 412, "PRECONDITION_FAILED");
      expectError(await call("PUT", path, { as: as(admin), body: { name: "x" }, headers: { "If-Match": stale } }), 412, "PRECONDITION_FAILED");
      expectError(await call("DELETE", path, { as: as(admin), headers: { "If-Match": stale } }), 412, "PRECONDITION_FAILED");
    }
    expect(await dbSnapshot()).toEqual(before);
    const star = await call("PUT", path, { as: as(admin), body: { name: "starred", data: {} }, headers: { "If-Match": "*" } });
    expect(star.status).toBe(200);
    const list = `"other", ${star.headers.get("ETag")}`;
    expect((await call("DELETE", path, { as: as(admin), headers: { "If-Match": list } })).status).toBe(204);
  });

  it("If-Match on a dataset that does not exist is 412, never a creation", async () => {
    const before = await dbSnapshot();
    const path = `/api/json-datasets/${crypto.randomUUID()}`;
    expectError(await call("PUT", path, { as: as(admin), body: { name: "x", data: {} }, headers: { "If-Match": "*" } }), 412, "PRECONDITION_FAILED");
    expectError(await call("DELETE", path, { as: as(admin), headers: { "If-Match": "*" } }), 412, "PRECONDITION_FAILED");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("GET with If-None-Match naming the revision is 304 without a body, in one round trip that reads no data", async () => {
    const created = await createDataset(TRICKY_DATA);
    const path = `/api/json-datasets/${created.json.id}`;
    const etag = created.headers.get("ETag")!;
    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const res = await call("GET", path, { as: as(reader), headers: { "If-None-Match": tag } });
      expect(res.status, tag).toBe(304);
      expect(res.text).toBe("");
      expect(res.headers.get("ETag")).toBe(etag);
      expect(roundTrips(res)).toBe(1);
    }
    const other = await call("GET", path, { as: as(reader), headers: { "If-None-Match": '"other"' } });
    expect(other.status).toBe(200);
    expect(dataOf(other)).toBe(TRICKY_DATA);
    // After an update, the old tag no longer matches.
    await call("PUT", path, { as: as(admin), body: { name: created.json.name } });
    const changed = await call("GET", path, { as: as(reader), headers: { "If-None-Match": etag } });
    expect(changed.status).toBe(200);
    expect(dataOf(changed)).toBe(TRICKY_DATA);
  });

  it("an unknown dataset is 404 whatever If-None-Match says", async () => {
    expectError(await call("GET", `/api/json-datasets/${crypto.randomUUID()}`, { as: as(admin), headers: { "If-None-Match": "*" } }), 404, "NOT_FOUND");
  });
});

describe("DELETE /api/json-datasets/{id}", () => {
  it("deletes the dataset and its data (204) in one round trip; then 404 and gone from the list", async () => {
    const { json } = await createDataset('{"a":[1,2,3]}');
    const res = await call("DELETE", `/api/json-datasets/${json.id}`, { as: as(admin) });
    expect(res.status).toBe(204);
    expect(roundTrips(res)).toBe(1);
    expect(await chunkRows(json.id)).toEqual([]);
    expectError(await call("GET", `/api/json-datasets/${json.id}`, { as: as(admin) }), 404, "NOT_FOUND");
    expectError(await call("DELETE", `/api/json-datasets/${json.id}`, { as: as(admin) }), 404, "NOT_FOUND");
    const list = await call("GET", "/api/json-datasets?maxResults=1000", { as: as(admin) });
    expect(list.json.content.some((d: { id: string }) => d.id === json.id)).toBe(false);
  });

  it("goes with its account: deleting the account deletes its datasets and their chunks", async () => {
    const doomed = await createAccount();
    const owner = await createUser(doomed.id, { groups: ["Users", "Administrators"] });
    const { json } = await createDataset('{"a":1}', "doomed", as(owner));
    expect((await call("DELETE", `/api/accounts/${doomed.id}`)).status).toBe(204);
    expect(await chunkRows(json.id)).toEqual([]);
    for (const [binding, database] of databases()) {
      expect(await database.prepare("SELECT count(*) AS n FROM json_datasets WHERE account_id = ?").bind(doomed.id).first("n"), binding).toBe(0);
    }
  });
});

describe("who may do what", () => {
  it("any user of the account reads; writing needs ROLE_MANAGE_CONNECTIONS (an admin holds it)", async () => {
    const { json } = await createDataset();
    const path = `/api/json-datasets/${json.id}`;
    expect((await call("GET", path, { as: as(reader) })).status).toBe(200);
    expect((await call("GET", "/api/json-datasets", { as: as(reader) })).status).toBe(200);
    const before = await dbSnapshot();
    expectError(await call("POST", "/api/json-datasets", { as: as(reader), body: { name: freshName(), data: {} } }), 403, "FORBIDDEN");
    expectError(await call("PUT", path, { as: as(reader), body: { name: "x", data: {} } }), 403, "FORBIDDEN");
    expectError(await call("DELETE", path, { as: as(reader) }), 403, "FORBIDDEN");
    expect(await dbSnapshot()).toEqual(before);
    const made = await createDataset("{}", freshName(), as(connectionManager));
    expect(made.json.createdByUserID).toBe(connectionManager.id);
    expect((await call("PUT", path, { as: as(connectionManager), body: { name: json.name, data: { by: "manager" } } })).status).toBe(200);
    expect((await call("DELETE", path, { as: as(connectionManager) })).status).toBe(204);
  });

  it("the supervisor, a member of no account, is refused every dataset route (403)", async () => {
    const { json } = await createDataset();
    const before = await dbSnapshot();
    expectError(await call("GET", "/api/json-datasets", { as: SUPERVISOR }), 403, "FORBIDDEN");
    expectError(await call("GET", `/api/json-datasets/${json.id}`, { as: SUPERVISOR }), 403, "FORBIDDEN");
    expectError(await call("POST", "/api/json-datasets", { as: SUPERVISOR, body: { name: "s", data: {}, accountId: account.id } }), 403, "FORBIDDEN");
    expectError(await call("PUT", `/api/json-datasets/${json.id}`, { as: SUPERVISOR, body: { name: "s", data: {} } }), 403, "FORBIDDEN");
    expectError(await call("DELETE", `/api/json-datasets/${json.id}`, { as: SUPERVISOR }), 403, "FORBIDDEN");
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("another account's datasets", () => {
  it("are 404 on GET, PUT and DELETE, exactly like an unknown id, and never listed or changed", async () => {
    const theirs = await createDataset('{"secret":"theirs"}', "theirs", as(otherAdmin));
    const before = await dbSnapshot();
    const bodies: Record<string, unknown> = { GET: undefined, PUT: { name: "hijacked", data: { x: 1 } }, DELETE: undefined };
    for (const [method, body] of Object.entries(bodies)) {
      const variants: Record<string, string>[] = method === "GET" ? [{}, { "If-None-Match": "*" }] : [{}];
      for (const headers of variants) {
        const other = await call(method, `/api/json-datasets/${theirs.json.id}`, { as: as(admin), body, headers });
        const missing = await call(method, `/api/json-datasets/${crypto.randomUUID()}`, { as: as(admin), body, headers });
        expectError(other, 404, "NOT_FOUND");
        expectError(missing, 404, "NOT_FOUND");
        expect(other.json.message).toBe(missing.json.message);
        expect(other.text).not.toContain("secret");
      }
    }
    // A rename that keeps the data, too.
    expectError(await call("PUT", `/api/json-datasets/${theirs.json.id}`, { as: as(admin), body: { name: "hijacked" } }), 404, "NOT_FOUND");
    const list = await call("GET", "/api/json-datasets?maxResults=1000", { as: as(admin) });
    for (const item of list.json.content) expect(item.accountId).toBe(account.id);
    expect(list.text).not.toContain(theirs.json.id);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("cannot be written into: accountId naming another account is 403 ACCOUNT_FORBIDDEN", async () => {
    const { json } = await createDataset();
    const before = await dbSnapshot();
    expectError(
      await call("POST", "/api/json-datasets", { as: as(admin), body: { name: freshName(), data: {}, accountId: otherAdmin.accountId } }),
      403,
      "ACCOUNT_FORBIDDEN",
    );
    expectError(await call("PUT", `/api/json-datasets/${json.id}`, { as: as(admin), body: { name: json.name, accountId: otherAdmin.accountId } }), 403, "ACCOUNT_FORBIDDEN");
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("bad input: a documented 4xx naming the member, nothing stored", () => {
  const long = (n: number) => "x".repeat(n);
  const cases: [label: string, body: string, status: number, errorCode: "VALIDATION_FAILED" | "MALFORMED_JSON", problems: string[]][] = [
    ["name missing", '{"data":{}}', 400, "VALIDATION_FAILED", ["body.name"]],
    ["name empty", '{"name":"","data":{}}', 400, "VALIDATION_FAILED", ["body.name"]],
    ["name blank", '{"name":"   ","data":{}}', 400, "VALIDATION_FAILED", ["body.name"]],
    ["name of 256 characters", `{"name":"${long(256)}","data":{}}`, 400, "VALIDATION_FAILED", ["body.name"]],
    ["name with a line break", '{"name":"a\\nb","data":{}}', 400, "VALIDATION_FAILED", ["body.name"]],
    ["name a number", '{"name":7,"data":{}}', 400, "VALIDATION_FAILED", ["body.name"]],
    ["description of 513 characters", `{"name":"d","description":"${long(513)}","data":{}}`, 400, "VALIDATION_FAILED", ["body.description"]],
    ["description with NUL", '{"name":"d","description":"a\\u0000b","data":{}}', 400, "VALIDATION_FAILED", ["body.description"]],
    ["description an object", '{"name":"d","description":{},"data":{}}', 400, "VALIDATION_FAILED", ["body.description"]],
    ["data null", '{"name":"d","data":null}', 400, "VALIDATION_FAILED", ["body.data"]],
    ["data an array", '{"name":"d","data":[1,2]}', 400, "VALIDATION_FAILED", ["body.data"]],
    ["data a string of JSON", '{"name":"d","data":"{\\"a\\":1}"}', 400, "VALIDATION_FAILED", ["body.data"]],
    ["data a number", '{"name":"d","data":12345678901234567890}', 400, "VALIDATION_FAILED", ["body.data"]],
    ["data with a lone surrogate", '{"name":"d","data":{"s":"\\ud800"}}', 400, "VALIDATION_FAILED", ["body.data.s"]],
    ["data nested 72 levels deep", `{"name":"d","data":{"a":${"[".repeat(70)}${"]".repeat(70)}}}`, 400, "VALIDATION_FAILED", []],
    ["accountId a number", '{"name":"d","data":{},"accountId":5}', 400, "VALIDATION_FAILED", ["body.accountId"]],
    ["the body an array", '[{"name":"d","data":{}}]', 400, "VALIDATION_FAILED", []],
    ["not JSON", '{"name":"d","data":{a:1}}', 400, "MALFORMED_JSON", ["body"]],
    ["data not JSON (truncated)", '{"name":"d","data":{"a":', 400, "MALFORMED_JSON", ["body"]],
    ["an empty body", " ", 400, "MALFORMED_JSON", ["body"]],
  ];

  it.each(cases)("POST and PUT: %s", async (_label, body, status, errorCode, problems) => {
    const { json } = await createDataset('{"kept":1.0}');
    const before = await dbSnapshot();
    for (const [method, path] of [
      ["POST", "/api/json-datasets"],
      ["PUT", `/api/json-datasets/${json.id}`],
    ] as const) {
      const res = await send(method, path, body);
      const error = expectError(res, status, errorCode);
      if (problems.length > 0) expect([...new Set(error.problems.map((p: { name: string }) => p.name))]).toEqual(problems);
    }
    expect(await dbSnapshot()).toEqual(before);
    expect(dataOf(await call("GET", `/api/json-datasets/${json.id}`, { as: as(admin) }))).toBe('{"kept":1.0}');
  });

  it("POST without data is 400 naming body.data (a PUT without it keeps the stored data)", async () => {
    const before = await dbSnapshot();
    expectError(await send("POST", "/api/json-datasets", '{"name":"no data"}'), 400, "VALIDATION_FAILED", ["body.data"]);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("a path id over 64 characters is 400", async () => {
    expectError(await call("GET", `/api/json-datasets/${long(65)}`, { as: as(admin) }), 400, "VALIDATION_FAILED", ["path.id"]);
  });

  it("a body that is not JSON media is 415, nothing stored", async () => {
    const before = await dbSnapshot();
    const res = await call("POST", "/api/json-datasets", { as: as(admin), rawBody: '{"name":"t","data":{}}', headers: { "Content-Type": "text/plain" } });
    expectError(res, 415, "UNSUPPORTED_MEDIA_TYPE");
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("the FILE_SIZE quota's consumption", () => {
  it("is the live total of the account's data bytes, through creates, updates and deletes", async () => {
    const mine = await createAccount();
    const owner = await createUser(mine.id, { groups: ["Users", "Administrators"] });
    await call("PUT", "/api/quota", { body: { accountId: mine.id, quotas: [{ type: "FILE_SIZE", limit: 1_000_000 }] } });
    const consumption = async () => (await call("GET", `/api/quota/${mine.id}`, { as: as(owner) })).json.quotas[0].consumption;
    expect(await consumption()).toBe(0);
    const a = await createDataset('{"a":"€€"}', "a", as(owner)); // 14 bytes
    await createDataset('{"b": 1.0}', "b", as(owner)); // 10 bytes
    expect(await consumption()).toBe(24);
    await send("PUT", `/api/json-datasets/${a.json.id}`, rawBody({ name: '"a"', data: "{}" }), as(owner));
    expect(await consumption()).toBe(12);
    await call("DELETE", `/api/json-datasets/${a.json.id}`, { as: as(owner) });
    expect(await consumption()).toBe(10);
    expect((await call("PATCH", `/api/quota/refresh/${mine.id}`)).json.quotas).toEqual([{ type: "FILE_SIZE", limit: 1_000_000, consumption: 10 }]);
  });
});
