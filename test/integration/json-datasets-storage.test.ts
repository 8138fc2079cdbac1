import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { createDatabase } from "../../src/db/client";
import { CHUNK_MAX_BYTES, listDatasets, readDataset, readDatasetText } from "../../src/db/json-datasets";
import { RoundTripCounter } from "../../src/db/round-trips";
import { RequestSession } from "../../src/db/session";
import { rawMemberText } from "../../src/domain/raw-json";
import { datasetBody, jsonWithRawMember } from "../../src/routes/json-datasets/json-datasets.response";
import { assertConformant } from "./harness/response-validation";
import { as, buildRequest, call, createAccount, createUser, databaseOf, databases, dbSnapshot, expectError, VENDOR_JSON, type CallOptions, type CallResult, type TestUser } from "./helpers";

/**
 * Where a dataset's bytes live: chunk rows in D1, written and replaced in one batch. A 5 MB
 * dataset round-trips byte for byte; nothing the dataset code sends to D1 would pass D1's
 * production limits (which the local runtime does not enforce); a write that fails half way
 * leaves the old version whole and no chunk orphaned; a read streams chunk by chunk.
 */
const MAX_DATASET_BYTES = 5_242_880;
/** D1's production limits (https://developers.cloudflare.com/d1/platform/limits/). */
const D1_MAX_SQL_BYTES = 100_000;
const D1_MAX_BOUND_PARAMETERS = 100;
const D1_MAX_VALUE_BYTES = 2_000_000;

let account: { id: string };
let admin: TestUser;

beforeAll(async () => {
  account = await createAccount();
  admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
  await call("GET", "/api/json-datasets", { as: as(admin) });
});

const utf8 = (text: string) => new TextEncoder().encode(text).length;

/**
 * JSON object text of exactly `bytes` UTF-8 bytes: multi-byte characters throughout (so chunk
 * boundaries fall inside their byte sequences), numbers JSON.parse would change, and a `seed`
 * that makes each text different.
 */
function datasetText(bytes: number, seed: string): string {
  const head = `{"seed":"${seed}","big":12345678901234567890,"one":1.0,"text":"`;
  const tail = '"}';
  const unit = "a€😀é"; // 1 + 3 + 4 + 2 bytes
  const room = bytes - utf8(head) - utf8(tail);
  const body = unit.repeat(Math.floor(room / 10));
  return `${head}${body}${"x".repeat(room - utf8(body))}${tail}`;
}

const rawBody = (name: string, data: string) => `{"name":${JSON.stringify(name)},"data":${data}}`;
const send = (method: string, path: string, text: string, headers: Record<string, string> = {}) =>
  call(method, path, { as: as(admin), rawBody: text, headers: { "Content-Type": VENDOR_JSON, ...headers } });
const dataOf = (res: CallResult) => rawMemberText(res.text, "data");

/** Chunk rows that are not the current version of an existing dataset, on any database: must always be none. */
async function orphanChunks(): Promise<number> {
  let orphans = 0;
  for (const [, database] of databases()) {
    orphans += (await database
      .prepare(
        `SELECT count(*) AS n FROM json_dataset_chunks c
         WHERE NOT EXISTS (SELECT 1 FROM json_datasets d WHERE d.id = c.dataset_id AND d.account_id = c.account_id AND d.data_version = c.version)`,
      )
      .first<number>("n"))!;
  }
  return orphans;
}

/** The byte sizes of the chunks of a dataset of `admin`'s account, on its database. */
const storedChunkSizes = async (datasetId: string) =>
  (
    await (await databaseOf(account.id))
      .prepare("SELECT length(CAST(data AS BLOB)) AS bytes FROM json_dataset_chunks WHERE dataset_id = ? ORDER BY seq")
      .bind(datasetId)
      .all<{ bytes: number }>()
  ).results.map((r) => r.bytes);

// ------------------------------------------------------------------ what the Worker sends to D1

interface Statement {
  sql: string;
  values: unknown[];
}

/** A D1 binding that records every statement prepared and the values bound to it, then runs them for real. */
function recordingD1(db: D1Database, statements: Statement[]): D1Database {
  const INNER = Symbol("inner");
  type Recorded = D1PreparedStatement & { [INNER]: D1PreparedStatement };
  const wrap = (stmt: D1PreparedStatement, entry: Statement): Recorded => {
    const wrapped = Object.create(stmt) as Recorded;
    wrapped[INNER] = stmt;
    wrapped.bind = (...values: unknown[]) => {
      const bound = { sql: entry.sql, values };
      statements.push(bound);
      return wrap(stmt.bind(...values), bound);
    };
    wrapped.first = ((column?: string) => (column === undefined ? stmt.first() : stmt.first(column))) as D1PreparedStatement["first"];
    wrapped.all = (() => stmt.all()) as D1PreparedStatement["all"];
    wrapped.run = (() => stmt.run()) as D1PreparedStatement["run"];
    wrapped.raw = ((options?: { columnNames?: boolean }) => (options?.columnNames ? stmt.raw({ columnNames: true }) : stmt.raw())) as D1PreparedStatement["raw"];
    return wrapped;
  };
  const proxy = Object.create(db) as D1Database;
  proxy.prepare = (sql: string) => {
    const entry = { sql, values: [] };
    statements.push(entry);
    return wrap(db.prepare(sql), entry);
  };
  proxy.batch = ((list: D1PreparedStatement[]) => db.batch(list.map((s) => (s as Partial<Recorded>)[INNER] ?? s))) as D1Database["batch"];
  // The Worker runs each request on a session (src/db/session.ts): here one that records too.
  proxy.withSession = () => ({ prepare: proxy.prepare, batch: proxy.batch, getBookmark: () => null }) as unknown as D1DatabaseSession;
  return proxy;
}

/** Every database of the project (the directory and the shards), each recording into `statements`. */
const recordingDatabases = (statements: Statement[]): Record<string, D1Database> =>
  Object.fromEntries(databases().map(([binding, database]) => [binding, recordingD1(database, statements)]));

const app = await createApp();

/** A request through the real app over the databases `over` (by binding), its answer checked against the document like call()'s. */
async function callOver(over: Record<string, D1Database>, method: string, path: string, options: CallOptions): Promise<CallResult> {
  const bindings = { ...env, ...over };
  const ctx = createExecutionContext();
  const request = buildRequest(method, path, options);
  const response = await app.fetch(request, bindings, ctx);
  await waitOnExecutionContext(ctx);
  const text = await response.text();
  await assertConformant({ method, url: request.url, status: response.status, headers: response.headers, text });
  return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined };
}

const valueBytes = (value: unknown): number =>
  typeof value === "string" ? utf8(value) : value instanceof ArrayBuffer || ArrayBuffer.isView(value) ? value.byteLength : value === null ? 0 : 8;

/** What would pass D1's production limits, statement by statement. */
function limitViolations(statements: Statement[]): string[] {
  return statements.flatMap(({ sql, values }) => {
    const what = sql.slice(0, 80);
    const sizes = values.map(valueBytes);
    const total = sizes.reduce((a, b) => a + b, 0);
    return [
      ...(utf8(sql) > D1_MAX_SQL_BYTES ? [`${what}: ${utf8(sql)} bytes of SQL`] : []),
      ...(values.length > D1_MAX_BOUND_PARAMETERS ? [`${what}: ${values.length} bound parameters`] : []),
      ...sizes.filter((s) => s > D1_MAX_VALUE_BYTES).map((s) => `${what}: a bound value of ${s} bytes`),
      // Whatever row a statement writes is made of its values: their total bounds the row's size.
      ...(total > D1_MAX_VALUE_BYTES ? [`${what}: ${total} bytes of bound values in one statement (one row could hold them all)`] : []),
    ];
  });
}

describe("the recording binding sees what the dataset code sends", () => {
  it("finds a statement over the limits when one is sent (the check can fail)", () => {
    expect(limitViolations([{ sql: "INSERT INTO t VALUES (?)", values: ["x".repeat(D1_MAX_VALUE_BYTES + 1)] }])).toHaveLength(2);
    expect(limitViolations([{ sql: `SELECT ${"1,".repeat(D1_MAX_SQL_BYTES / 2)}1`, values: [] }])).toHaveLength(1);
    expect(limitViolations([{ sql: "SELECT ?", values: Array.from({ length: 101 }, () => 1) }])).toHaveLength(1);
    expect(limitViolations([{ sql: "INSERT INTO t VALUES (?, ?)", values: ["€".repeat(400_000), "€".repeat(400_000)] }])).toHaveLength(1);
  });
});

describe("a 5 MB dataset", () => {
  it("round-trips byte for byte through create, read, update and delete, and nothing sent to D1 would pass its production limits", async () => {
    const statements: Statement[] = [];
    const db = recordingDatabases(statements);
    const first = datasetText(MAX_DATASET_BYTES, "first");
    const second = datasetText(MAX_DATASET_BYTES, "second");
    expect(utf8(first)).toBe(MAX_DATASET_BYTES);

    const created = await callOver(db, "POST", "/api/json-datasets", { as: as(admin), rawBody: rawBody("five-megabytes", first), headers: { "Content-Type": VENDOR_JSON } });
    expect(created.status, created.text.slice(0, 300)).toBe(201);
    expect(dataOf(created)).toBe(first);
    const path = `/api/json-datasets/${created.json.id}`;
    const read = await callOver(db, "GET", path, { as: as(admin) });
    expect(dataOf(read)).toBe(first);
    const sizes = await storedChunkSizes(created.json.id);
    expect(sizes).toHaveLength(Math.ceil(MAX_DATASET_BYTES / CHUNK_MAX_BYTES));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(CHUNK_MAX_BYTES);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(MAX_DATASET_BYTES);

    const updated = await callOver(db, "PUT", path, { as: as(admin), rawBody: rawBody("five-megabytes", second), headers: { "Content-Type": VENDOR_JSON } });
    expect(updated.status).toBe(200);
    expect(dataOf(await callOver(db, "GET", path, { as: as(admin) }))).toBe(second);
    const renamed = await callOver(db, "PUT", path, { as: as(admin), body: { name: "renamed" } });
    expect(dataOf(renamed)).toBe(second);
    await callOver(db, "GET", "/api/json-datasets", { as: as(admin) });
    expect((await callOver(db, "DELETE", path, { as: as(admin) })).status).toBe(204);

    // The check saw the chunks themselves: statements carrying close to CHUNK_MAX_BYTES each.
    const largest = Math.max(...statements.flatMap((s) => s.values.map(valueBytes)));
    expect(largest).toBeGreaterThan(CHUNK_MAX_BYTES * 0.9);
    expect(limitViolations(statements)).toEqual([]);
    expect(await orphanChunks()).toBe(0);
  }, 60_000);

  it("is refused 413 one byte over MAX_DATASET_BYTES, storing nothing", async () => {
    const before = await dbSnapshot();
    const res = await send("POST", "/api/json-datasets", rawBody("too-big", datasetText(MAX_DATASET_BYTES + 1, "over")));
    expectError(res, 413, "PAYLOAD_TOO_LARGE");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("a 6 MB body is 413, as a create and as an update, storing nothing", async () => {
    const existing = await send("POST", "/api/json-datasets", rawBody("kept", '{"kept":1.0}'));
    const before = await dbSnapshot();
    const sixMegabytes = rawBody("six", datasetText(6_000_000, "six"));
    expectError(await send("POST", "/api/json-datasets", sixMegabytes), 413, "PAYLOAD_TOO_LARGE");
    expectError(await send("PUT", `/api/json-datasets/${existing.json.id}`, sixMegabytes), 413, "PAYLOAD_TOO_LARGE");
    // Past the route's body cap (data limit + MAX_BODY_BYTES) the body is not even read whole.
    expectError(await send("POST", "/api/json-datasets", rawBody("seven", datasetText(7_000_000, "seven"))), 413, "PAYLOAD_TOO_LARGE");
    expect(await dbSnapshot()).toEqual(before);
    expect(dataOf(await call("GET", `/api/json-datasets/${existing.json.id}`, { as: as(admin) }))).toBe('{"kept":1.0}');
  });

  it("is answered as a stream of chunk-sized pieces, never as one concatenated body", async () => {
    const text = datasetText(MAX_DATASET_BYTES, "streamed");
    const created = await send("POST", "/api/json-datasets", rawBody("streamed", text));
    // The app's own Response, as the Worker returns it (the runtime re-chunks what it forwards, which would hide a whole body).
    const ctx = createExecutionContext();
    const response = await app.fetch(buildRequest("GET", `/api/json-datasets/${created.json.id}`, { as: as(admin) }), env, ctx);
    await waitOnExecutionContext(ctx);
    const reader = response.body!.getReader();
    const pieces: number[] = [];
    const bytes: Uint8Array[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      pieces.push(r.value.byteLength);
      bytes.push(r.value);
    }
    // The members, each stored chunk, the closing brace.
    expect(pieces.length).toBe(Math.ceil(MAX_DATASET_BYTES / CHUNK_MAX_BYTES) + 2);
    expect(Math.max(...pieces)).toBeLessThanOrEqual(CHUNK_MAX_BYTES);
    const whole = new Uint8Array(pieces.reduce((a, b) => a + b, 0));
    bytes.reduce((offset, piece) => (whole.set(piece, offset), offset + piece.byteLength), 0);
    expect(rawMemberText(new TextDecoder().decode(whole), "data")).toBe(text);
  }, 30_000);
});

describe("jsonWithRawMember", () => {
  it("streams the members, then each piece of the raw value, then the end, one piece per read", async () => {
    const stream = jsonWithRawMember({ id: "x", n: 1 }, "data", ['{"a":', "1.0", "}"]);
    const reader = stream.getReader();
    const reads: string[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) reads.push(new TextDecoder().decode(r.value));
    expect(reads).toEqual(['{"id":"x","n":1,"data":', '{"a":', "1.0", "}", "}"]);
    expect(reads.join("")).toBe('{"id":"x","n":1,"data":{"a":1.0}}');
    const empty = jsonWithRawMember({}, "data", ["[]"]);
    expect(await new Response(empty).text()).toBe('{"data":[]}');
  });

  it("an answer whose data is one stored chunk is one string; several chunks are streamed", async () => {
    expect(datasetBody({ id: "x", n: 1 }, ['{"a":1.0}'])).toBe('{"id":"x","n":1,"data":{"a":1.0}}');
    expect(datasetBody({}, ["[]"])).toBe('{"data":[]}');
    const streamed = datasetBody({ id: "x" }, ['{"a":', "1.0}"]);
    expect(streamed).toBeInstanceOf(ReadableStream);
    expect(await new Response(streamed).text()).toBe('{"id":"x","data":{"a":1.0}}');
  });
});

describe("a write that fails half way leaves the old version whole, and nothing orphaned", () => {
  const TWO_MB = 2_000_000;

  it("concurrent PUTs with one If-Match: exactly one wins; the losers' batches, failed after their chunks were written, leave nothing", async () => {
    const original = datasetText(TWO_MB, "original");
    const created = await send("POST", "/api/json-datasets", rawBody("contended", original));
    const etag = created.headers.get("ETag")!;
    const path = `/api/json-datasets/${created.json.id}`;
    const candidates = Array.from({ length: 5 }, (_, i) => datasetText(TWO_MB, `candidate-${i}`));
    const results = await Promise.all(candidates.map((data) => send("PUT", path, rawBody("contended", data), { "If-Match": etag })));
    const winners = results.flatMap((r, i) => (r.status === 200 ? [i] : []));
    expect(winners).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) expectError(r, 412, "PRECONDITION_FAILED");
    expect(dataOf(await call("GET", path, { as: as(admin) }))).toBe(candidates[winners[0]!]);
    expect(await orphanChunks()).toBe(0);
  }, 60_000);

  it("concurrent PUTs without If-Match: the last writer wins whole, and only its version is stored", async () => {
    const created = await send("POST", "/api/json-datasets", rawBody("last-writer", datasetText(TWO_MB, "start")));
    const path = `/api/json-datasets/${created.json.id}`;
    const candidates = Array.from({ length: 5 }, (_, i) => datasetText(TWO_MB, `writer-${i}`));
    const results = await Promise.all(candidates.map((data) => send("PUT", path, rawBody("last-writer", data))));
    for (const r of results) expect(r.status).toBe(200);
    const stored = dataOf(await call("GET", path, { as: as(admin) }));
    expect(candidates).toContain(stored);
    expect(await orphanChunks()).toBe(0);
  }, 60_000);

  it("a rename onto a taken name fails the batch at the update, after the new chunks were inserted: nothing changes", async () => {
    await send("POST", "/api/json-datasets", rawBody("taken", "{}"));
    const original = datasetText(TWO_MB, "before-rename");
    const created = await send("POST", "/api/json-datasets", rawBody("to-rename", original));
    const statements: Statement[] = [];
    const before = await dbSnapshot();
    const res = await callOver(recordingDatabases(statements), "PUT", `/api/json-datasets/${created.json.id}`, {
      as: as(admin),
      rawBody: rawBody("taken", datasetText(TWO_MB, "after-rename")),
      headers: { "Content-Type": VENDOR_JSON },
    });
    expectError(res, 409, "DUPLICATED");
    // The order that makes this a mid-batch failure: chunk inserts, then the update that fails.
    const order = statements.filter((s) => s.values.length > 0).map((s) => s.sql.split(" ").slice(0, 3).join(" ").toLowerCase());
    const firstUpdate = order.findIndex((s) => s.startsWith('update "json_datasets"'));
    expect(order.slice(0, firstUpdate).filter((s) => s.startsWith('insert into "json_dataset_chunks"')).length).toBeGreaterThan(0);
    expect(await dbSnapshot()).toEqual(before);
    expect(dataOf(await call("GET", `/api/json-datasets/${created.json.id}`, { as: as(admin) }))).toBe(original);
  }, 60_000);

  it("an update the FILE_SIZE quota refuses leaves the old version whole", async () => {
    const mine = await createAccount();
    const owner = await createUser(mine.id, { groups: ["Users", "Administrators"] });
    await call("PUT", "/api/quota", { body: { accountId: mine.id, quotas: [{ type: "FILE_SIZE", limit: 3_000_000 }] } });
    const original = datasetText(TWO_MB, "quota");
    const created = await call("POST", "/api/json-datasets", { as: as(owner), rawBody: rawBody("quota", original), headers: { "Content-Type": VENDOR_JSON } });
    const before = await dbSnapshot();
    const res = await call("PUT", `/api/json-datasets/${created.json.id}`, {
      as: as(owner),
      rawBody: rawBody("quota", datasetText(3_000_001, "grown")),
      headers: { "Content-Type": VENDOR_JSON },
    });
    expectError(res, 409, "QUOTA_EXCEEDED");
    expect(await dbSnapshot()).toEqual(before);
    expect(dataOf(await call("GET", `/api/json-datasets/${created.json.id}`, { as: as(owner) }))).toBe(original);
  }, 60_000);
});

describe("round trips", () => {
  it("E5 with a 1 MB dataset takes at most 2 D1 round trips (it takes 1: no read before the batch)", async () => {
    const created = await send("POST", "/api/json-datasets", rawBody("one-megabyte", datasetText(1_048_576, "v1")));
    const res = await send("PUT", `/api/json-datasets/${created.json.id}`, rawBody("one-megabyte", datasetText(1_048_576, "v2")), { "If-Match": created.headers.get("ETag")! });
    expect(res.status).toBe(200);
    const trips = Number(res.headers.get("X-D1-Round-Trips"));
    expect(trips).toBeLessThanOrEqual(2);
    expect(trips).toBe(1);
  }, 30_000);
});

describe("the storage module, for readers such as the JSON dataset connector", () => {
  it("lists an account's datasets and reads one's data text whole; skips the data for a revision the caller holds", async () => {
    const mine = await createAccount();
    const owner = await createUser(mine.id, { groups: ["Users", "Administrators"] });
    const text = datasetText(2_500_000, "module");
    const created = await call("POST", "/api/json-datasets", { as: as(owner), rawBody: rawBody("module", text), headers: { "Content-Type": VENDOR_JSON } });
    await call("POST", "/api/json-datasets", { as: as(owner), body: { name: "another", data: {} } });
    const db = createDatabase(new RequestSession(await databaseOf(mine.id), "first-primary"), new RoundTripCounter());
    expect((await listDatasets(db, mine.id)).map((d) => d.name)).toEqual(["another", "module"]);
    expect(await listDatasets(db, account.id)).not.toContainEqual(expect.objectContaining({ accountId: mine.id }));
    expect(await readDatasetText(db, mine.id, created.json.id)).toBe(text);
    expect(await readDatasetText(db, account.id, created.json.id)).toBeUndefined();
    const revision = created.headers.get("ETag")!.slice(1, -1);
    expect((await readDataset(db, mine.id, created.json.id, { unlessRevisionIn: [revision] }))?.chunks).toEqual([]);
    expect((await readDataset(db, mine.id, created.json.id, { unlessRevisionIn: ["other"] }))?.chunks.join("")).toBe(text);
  }, 30_000);
});
