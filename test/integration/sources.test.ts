import { beforeAll, describe, expect, it } from "vitest";
import {
  as,
  call,
  createAccount,
  createGroup,
  createUser,
  dbSnapshot,
  expectError,
  expectUnauthenticated,
  VENDOR_JSON,
  type TestUser,
} from "./helpers";
import { createSource, fieldPath, fieldsPath, nativeField, pagesForward, rowsOfSource, sourceName, sourcePath } from "./source-helpers";

const SOURCE_MEMBERS = [
  "accountId",
  "connectionId",
  "createdByUserID",
  "createdDate",
  "description",
  "enabled",
  "features",
  "id",
  "lastModifiedByUserID",
  "lastModifiedDate",
  "name",
  "ownerUserId",
].sort();

let accountA: { id: string };
let accountB: { id: string };
let readers: { id: string };
let admin: TestUser; // Administrators of A: WRITE on every source of A
let creator: TestUser; // ROLE_CREATE_SOURCES in A
let creator2: TestUser; // ROLE_CREATE_SOURCES in A, a second owner
let reader: TestUser; // member of the group Readers of A, no privilege
let outsider: TestUser; // a plain user of A, no grant, no privilege
let foreigner: TestUser; // ROLE_CREATE_SOURCES in B

beforeAll(async () => {
  accountA = await createAccount();
  accountB = await createAccount();
  // The group exists before its members sign in, so their cached identity knows it.
  readers = await createGroup(accountA.id, "Readers");
  admin = await createUser(accountA.id, { groups: ["Users", "Administrators"] });
  creator = await createUser(accountA.id, { roles: ["ROLE_CREATE_SOURCES"] });
  creator2 = await createUser(accountA.id, { roles: ["ROLE_CREATE_SOURCES"] });
  reader = await createUser(accountA.id, { groups: ["Users", "Readers"] });
  outsider = await createUser(accountA.id);
  foreigner = await createUser(accountB.id, { roles: ["ROLE_CREATE_SOURCES"] });
  // The connection the first source names (a source names a connection of its own account).
  const connection = await call("PUT", "/api/connections/conn-1", { as: as(admin), body: { name: "Flights store", connectionTypeId: "json-datasets" } });
  expect(connection.status, connection.text).toBe(201);
});

const grant = (principalType: "USER" | "GROUP", principalId: string, permission: "READ" | "WRITE") => ({ principalType, principalId, permission });

describe("POST /api/sources", () => {
  it("creates a source owned by its creator: 201, Location, every member", async () => {
    const name = sourceName("flights");
    const res = await call("POST", "/api/sources", {
      as: as(creator),
      body: { name, description: "All flights", connectionId: "conn-1", features: ["TEXT_SEARCH"] },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get("Content-Type")).toBe(VENDOR_JSON);
    expect(Object.keys(res.json).sort()).toEqual(SOURCE_MEMBERS);
    expect(res.json).toMatchObject({
      name,
      description: "All flights",
      accountId: accountA.id,
      connectionId: "conn-1",
      features: ["TEXT_SEARCH"],
      enabled: true,
      ownerUserId: creator.id,
      createdByUserID: creator.id,
      lastModifiedByUserID: creator.id,
    });
    expect(res.json.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("Location")).toBe(`/api/sources/${res.json.id}`);

    const read = await call("GET", res.headers.get("Location")!, { as: as(creator) });
    expect(read.status).toBe(200);
    expect(read.json).toEqual(res.json);
  });

  it("defaults description and connectionId to null, features to [] and enabled to true", async () => {
    const res = await call("POST", "/api/sources", { as: as(creator), body: { name: sourceName() } });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ description: null, connectionId: null, features: [], enabled: true });
  });

  it("needs ROLE_CREATE_SOURCES: a plain user, a group member and the supervisor get 403", async () => {
    const before = await dbSnapshot();
    for (const who of [as(outsider), as(reader), undefined]) {
      const res = await call("POST", "/api/sources", { as: who, body: { name: sourceName() } });
      expectError(res, 403, "FORBIDDEN");
    }
    expect(await dbSnapshot()).toEqual(before);
  });

  it("lets an account admin create sources (ROLE_ADMIN holds every privilege)", async () => {
    const source = await createSource(admin);
    expect(source.ownerUserId).toBe(admin.id);
  });

  it("answers 401 without credentials", async () => {
    expectUnauthenticated(await call("POST", "/api/sources", { as: null, body: { name: "x" } }), "/api/sources");
  });

  it("answers 409 DUPLICATED for a name taken in the same account, but not for another account's name", async () => {
    const name = sourceName("dup");
    await createSource(creator, { name });
    const before = await dbSnapshot();
    expectError(await call("POST", "/api/sources", { as: as(creator2), body: { name } }), 409, "DUPLICATED");
    expect(await dbSnapshot()).toEqual(before);
    const elsewhere = await call("POST", "/api/sources", { as: as(foreigner), body: { name } });
    expect(elsewhere.status, elsewhere.text).toBe(201);
  });

  it("creates native fields given inline", async () => {
    const source = await createSource(creator, {
      fields: [
        nativeField("CARRIER_CODE", {}, { originalType: "VARCHAR(3)" }),
        nativeField("price", { name: "price", label: "Ticket price" }, { originalType: "DECIMAL(10,2)" }),
      ],
    });
    const list = await call("GET", fieldsPath(source.id), { as: as(creator) });
    expect(list.status).toBe(200);
    expect(list.json.content.map((f: { name: string; dataType: string; label: string }) => [f.name, f.dataType, f.label])).toEqual([
      ["CARRIER_CODE", "ATTRIBUTE", "CARRIER CODE"],
      ["price", "NUMBER", "Ticket price"],
    ]);
  });

  it("creates many inline fields, generating unique names from the original names", async () => {
    const fields = Array.from({ length: 30 }, (_, i) => nativeField(`col ${i % 15}`, {}, { originalType: i % 2 ? "INT" : "VARCHAR" }));
    const source = await createSource(creator, { fields });
    const list = await call("GET", `${fieldsPath(source.id)}?maxResults=1000`, { as: as(creator) });
    const names = list.json.content.map((f: { name: string }) => f.name).sort();
    const expected = Array.from({ length: 15 }, (_, i) => [`col_${i}`, `col_${i}_2`]).flat().sort();
    expect(names).toEqual(expected);
    expect(list.json.content.find((f: { name: string }) => f.name === "col_1").dataType).toBe("INTEGER");
  });

  it("refuses inline fields whose names clash, with each other or with Volume: 409 DUPLICATED", async () => {
    const before = await dbSnapshot();
    const twice = await call("POST", "/api/sources", {
      as: as(creator),
      body: { name: sourceName(), fields: [nativeField("a", { name: "a" }), nativeField("b", { name: "a" })] },
    });
    expectError(twice, 409, "DUPLICATED", ["body.fields[1].name"]);
    const volume = await call("POST", "/api/sources", { as: as(creator), body: { name: sourceName(), fields: [nativeField("v", { name: "Volume" })] } });
    expectError(volume, 409, "DUPLICATED", ["body.fields[0].name"]);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("refuses a non-NATIVE inline field with 400 naming it, and creates nothing", async () => {
    const before = await dbSnapshot();
    const name = sourceName("bad-inline");
    const res = await call("POST", "/api/sources", {
      as: as(creator),
      body: {
        name,
        fields: [nativeField("a", { name: "a" }), { name: "d", origin: { type: "DERIVED", derivedOrigin: { expression: "1 + 1" } } }],
      },
    });
    expectError(res, 400, "VALIDATION_FAILED", ["body.fields[1].origin.type"]);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("refuses invalid members with one Problem each", async () => {
    const before = await dbSnapshot();
    const res = await call("POST", "/api/sources", {
      as: as(creator),
      body: { name: "", features: ["text search"], enabled: "yes", fields: [{ origin: { type: "NATIVE", nativeOrigin: {} } }] },
    });
    expectError(res, 400, "VALIDATION_FAILED", ["body.name", "body.features[0]", "body.enabled", "body.fields[0].origin.nativeOrigin.originalName"]);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("gives every new source the custom metric Volume = count(*), of type INTEGER", async () => {
    const source = await createSource(creator);
    const res = await call("GET", `${sourcePath(source.id)}/custom-metrics/Volume`, { as: as(creator) });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ name: "Volume", expression: "count(*)", dataType: "INTEGER", visible: true });
  });
});

describe("GET /api/sources", () => {
  let mine: string[];
  beforeAll(async () => {
    // creator2 owns five sources in A; only those five are visible to it (unless granted).
    mine = [];
    for (let i = 0; i < 5; i++) mine.push((await createSource(creator2, { name: `paging-${i}-${sourceName()}` })).name);
    mine.sort();
  });

  it("pages forward and back by name with maxResults and opaque tokens", async () => {
    const pages = await pagesForward("/api/sources", creator2, 2);
    const names = pages.flatMap((p) => p.json.content.map((s: { name: string }) => s.name));
    expect(names.filter((n) => n.startsWith("paging-"))).toEqual(mine);
    expect(names).toEqual([...names].sort());
    expect(new Set(names).size).toBe(names.length);
    expect(pages[0]!.json.content).toHaveLength(2);
    expect(pages[0]!.json.pageInfo.previousPageToken).toBeNull();
    expect(pages.at(-1)!.json.pageInfo.nextPageToken).toBeNull();

    // Back from the second page: the first page again.
    const back = await call("GET", `/api/sources?maxResults=2&pageToken=${pages[1]!.json.pageInfo.previousPageToken}`, { as: as(creator2) });
    expect(back.status).toBe(200);
    expect(back.json.content).toEqual(pages[0]!.json.content);
    expect(back.json.pageInfo.previousPageToken).toBeNull();
    expect(back.json.pageInfo.nextPageToken).not.toBeNull();
  });

  it("lists only the sources the caller may READ", async () => {
    const all = (await pagesForward("/api/sources", creator2, 1000)).flatMap((p) => p.json.content);
    expect(all.every((s: { ownerUserId: string }) => s.ownerUserId === creator2.id)).toBe(true);
    expect(all.every((s: { accountId: string }) => s.accountId === accountA.id)).toBe(true);

    const outsiders = await call("GET", "/api/sources", { as: as(outsider) });
    expect(outsiders.status).toBe(200);
    expect(outsiders.json).toEqual({ content: [], pageInfo: { nextPageToken: null, previousPageToken: null } });

    const foreign = await call("GET", "/api/sources?maxResults=1000", { as: as(foreigner) });
    expect(foreign.json.content.every((s: { accountId: string }) => s.accountId === accountB.id)).toBe(true);
  });

  it("lists every source of the account to an admin", async () => {
    const names = (await pagesForward("/api/sources", admin, 1000)).flatMap((p) => p.json.content.map((s: { name: string }) => s.name));
    for (const n of mine) expect(names).toContain(n);
    const mineToo = (await pagesForward("/api/sources", creator, 1000)).flatMap((p) => p.json.content.map((s: { name: string }) => s.name));
    for (const n of mineToo) expect(names).toContain(n);
  });

  it("refuses a foreign page token and an out-of-range maxResults with 400", async () => {
    expectError(await call("GET", "/api/sources?pageToken=not-a-token", { as: as(creator) }), 400, "INVALID_PAGE_TOKEN", ["query.pageToken"]);
    expectError(await call("GET", "/api/sources?maxResults=1001", { as: as(creator) }), 400, "VALIDATION_FAILED", ["query.maxResults"]);
    expectError(await call("GET", "/api/sources?maxResults=0", { as: as(creator) }), 400, "VALIDATION_FAILED", ["query.maxResults"]);
  });

  it("answers 401 without credentials", async () => {
    expectUnauthenticated(await call("GET", "/api/sources", { as: null }), "/api/sources");
  });
});

describe("GET /api/sources/{id}", () => {
  it("answers 404 for an unknown id and for another account's source (never 403)", async () => {
    expectError(await call("GET", sourcePath(crypto.randomUUID()), { as: as(creator) }), 404, "NOT_FOUND");
    const foreign = await createSource(foreigner);
    const res = await call("GET", sourcePath(foreign.id), { as: as(admin) });
    expectError(res, 404, "NOT_FOUND");
    expect(res.text).not.toContain(foreign.name);
    // Its permissions, security and fields alike.
    for (const path of ["/permissions", "/security", "/fields", "/custom-metrics"]) {
      expectError(await call("GET", `${sourcePath(foreign.id)}${path}`, { as: as(admin) }), 404, "NOT_FOUND");
    }
  });

  it("answers 403 to a user of the account without a grant, and the list leaves the source out", async () => {
    const source = await createSource(creator);
    expectError(await call("GET", sourcePath(source.id), { as: as(outsider) }), 403, "FORBIDDEN");
    const list = await call("GET", "/api/sources?maxResults=1000", { as: as(outsider) });
    expect(list.json.content.map((s: { id: string }) => s.id)).not.toContain(source.id);
  });

  it("answers 401 without credentials", async () => {
    const source = await createSource(creator);
    expectUnauthenticated(await call("GET", sourcePath(source.id), { as: null }), sourcePath(source.id));
  });
});

describe("PATCH /api/sources/{id}", () => {
  it("changes name, description and enabled, and keeps the rest", async () => {
    const source = await createSource(creator, { description: "old", features: ["TEXT_SEARCH"] });
    const name = sourceName("renamed");
    const res = await call("PATCH", sourcePath(source.id), { as: as(creator), body: { name, description: null, enabled: false } });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ ...source, name, description: null, enabled: false, lastModifiedDate: expect.any(String) });
    expect(res.json.createdDate).toBe(source.createdDate);
    const read = await call("GET", sourcePath(source.id), { as: as(creator) });
    expect(read.json).toEqual(res.json);

    const partial = await call("PATCH", sourcePath(source.id), { as: as(creator), body: { enabled: true } });
    expect(partial.json).toMatchObject({ name, description: null, enabled: true });
  });

  it("answers 409 DUPLICATED for a taken name and changes nothing", async () => {
    const first = await createSource(creator);
    const second = await createSource(creator);
    const before = await dbSnapshot();
    expectError(await call("PATCH", sourcePath(second.id), { as: as(creator), body: { name: first.name } }), 409, "DUPLICATED");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("honours If-Match: a stale ETag gives 412, the current one succeeds", async () => {
    const source = await createSource(creator);
    const read = await call("GET", sourcePath(source.id), { as: as(creator) });
    const etag = read.headers.get("ETag")!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const changed = await call("PATCH", sourcePath(source.id), { as: as(creator), body: { description: "v2" }, headers: { "If-Match": etag } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.headers.get("ETag")).not.toBe(etag);

    const before = await dbSnapshot();
    const stale = await call("PATCH", sourcePath(source.id), { as: as(creator), body: { description: "v3" }, headers: { "If-Match": etag } });
    expectError(stale, 412, "PRECONDITION_FAILED");
    expect(await dbSnapshot()).toEqual(before);
    const staleDelete = await call("DELETE", sourcePath(source.id), { as: as(creator), headers: { "If-Match": etag } });
    expectError(staleDelete, 412, "PRECONDITION_FAILED");
    expect(await dbSnapshot()).toEqual(before);
    const deleted = await call("DELETE", sourcePath(source.id), { as: as(creator), headers: { "If-Match": changed.headers.get("ETag")! } });
    expect(deleted.status, deleted.text).toBe(204);
  });

  it("refuses invalid members with 400 and changes nothing", async () => {
    const source = await createSource(creator);
    const before = await dbSnapshot();
    const res = await call("PATCH", sourcePath(source.id), { as: as(creator), body: { name: "x".repeat(256), enabled: "no" } });
    expectError(res, 400, "VALIDATION_FAILED", ["body.name", "body.enabled"]);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("needs WRITE: 403 for a user of the account without it, 404 for another account", async () => {
    const source = await createSource(creator);
    const before = await dbSnapshot();
    expectError(await call("PATCH", sourcePath(source.id), { as: as(outsider), body: { name: "hijacked" } }), 403, "FORBIDDEN");
    expectError(await call("PATCH", sourcePath(source.id), { as: as(foreigner), body: { name: "hijacked" } }), 404, "NOT_FOUND");
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("DELETE /api/sources/{id}", () => {
  it("deletes the source with its fields, metrics, references and permissions: 204, then 404", async () => {
    const source = await createSource(creator, { fields: [nativeField("price", { name: "price" }, { originalType: "DOUBLE" })] });
    const derived = await call("POST", fieldsPath(source.id), {
      as: as(creator),
      body: { name: "double_price", origin: { type: "DERIVED", derivedOrigin: { expression: "price * 2" } } },
    });
    expect(derived.status, derived.text).toBe(201);
    const metric = await call("PUT", `${sourcePath(source.id)}/custom-metrics/m`, { as: as(creator), body: { expression: "sum(price)" } });
    expect(metric.status, metric.text).toBe(201);
    const perms = await call("PUT", `${sourcePath(source.id)}/permissions`, { as: as(creator), body: { content: [grant("USER", reader.id, "READ")] } });
    expect(perms.status, perms.text).toBe(200);
    const other = await createSource(creator, { fields: [nativeField("price", { name: "price" })] });

    const before = await dbSnapshot();
    expect(rowsOfSource(before, source.id)).toEqual({ sources: 1, source_items: 4, source_permissions: 1, source_references: 2 });

    const res = await call("DELETE", sourcePath(source.id), { as: as(creator) });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe("");

    const after = await dbSnapshot();
    expect(rowsOfSource(after, source.id)).toEqual({ sources: 0, source_items: 0, source_permissions: 0, source_references: 0 });
    expect(rowsOfSource(after, other.id)).toEqual(rowsOfSource(before, other.id));

    expectError(await call("GET", sourcePath(source.id), { as: as(creator) }), 404, "NOT_FOUND");
    expectError(await call("GET", fieldPath(source.id, "price"), { as: as(creator) }), 404, "NOT_FOUND");
    expectError(await call("GET", `${sourcePath(source.id)}/custom-metrics/Volume`, { as: as(creator) }), 404, "NOT_FOUND");
    expectError(await call("DELETE", sourcePath(source.id), { as: as(creator) }), 404, "NOT_FOUND");
    const reread = await call("GET", fieldPath(other.id, "price"), { as: as(creator) });
    expect(reread.status).toBe(200);
  });

  it("needs WRITE: 403 for a reader, 404 for another account; the source stays", async () => {
    const source = await createSource(creator);
    await call("PUT", `${sourcePath(source.id)}/permissions`, { as: as(creator), body: { content: [grant("USER", reader.id, "READ")] } });
    const before = await dbSnapshot();
    expectError(await call("DELETE", sourcePath(source.id), { as: as(reader) }), 403, "FORBIDDEN");
    expectError(await call("DELETE", sourcePath(source.id), { as: as(outsider) }), 403, "FORBIDDEN");
    expectError(await call("DELETE", sourcePath(source.id), { as: as(foreigner) }), 404, "NOT_FOUND");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("lets an account admin delete a source it does not own", async () => {
    const source = await createSource(creator);
    expect((await call("DELETE", sourcePath(source.id), { as: as(admin) })).status).toBe(204);
  });
});

describe("source permissions", () => {
  it("start empty; the owner reads them and PUT replaces the whole list", async () => {
    const source = await createSource(creator);
    const path = `${sourcePath(source.id)}/permissions`;
    const empty = await call("GET", path, { as: as(creator) });
    expect(empty.status, empty.text).toBe(200);
    expect(empty.json).toEqual({ content: [] });

    const first = [grant("USER", reader.id, "WRITE"), grant("GROUP", readers.id, "READ")];
    const put = await call("PUT", path, { as: as(creator), body: { content: first } });
    expect(put.status, put.text).toBe(200);
    const sortKey = (g: { principalType: string; principalId: string }) => g.principalType + g.principalId;
    const sorted = (list: ReturnType<typeof grant>[]) => [...list].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1));
    expect(put.json).toEqual({ content: sorted(first) });
    expect((await call("GET", path, { as: as(creator) })).json).toEqual({ content: sorted(first) });

    const second = [grant("USER", outsider.id, "READ")];
    const replaced = await call("PUT", path, { as: as(creator), body: { content: second } });
    expect(replaced.json).toEqual({ content: second });
    expect((await call("GET", path, { as: as(creator) })).json).toEqual({ content: second });

    const cleared = await call("PUT", path, { as: as(creator), body: { content: [] } });
    expect(cleared.json).toEqual({ content: [] });
    expect((await call("GET", path, { as: as(creator) })).json).toEqual({ content: [] });
  });

  it("an account admin manages the permissions of every source of its account", async () => {
    const source = await createSource(creator);
    const path = `${sourcePath(source.id)}/permissions`;
    const put = await call("PUT", path, { as: as(admin), body: { content: [grant("USER", creator2.id, "READ")] } });
    expect(put.status, put.text).toBe(200);
    expect((await call("GET", path, { as: as(admin) })).json.content).toEqual([grant("USER", creator2.id, "READ")]);
    // And has WRITE on the source itself.
    const patched = await call("PATCH", sourcePath(source.id), { as: as(admin), body: { description: "by admin" } });
    expect(patched.status, patched.text).toBe(200);
  });

  it("refuses unknown principals and another account's user with 400 naming each entry; nothing changes", async () => {
    const source = await createSource(creator);
    const path = `${sourcePath(source.id)}/permissions`;
    await call("PUT", path, { as: as(creator), body: { content: [grant("USER", reader.id, "READ")] } });
    const foreignGroup = await createGroup(accountB.id, `b-group-${Date.now()}`);
    const before = await dbSnapshot();
    const res = await call("PUT", path, {
      as: as(creator),
      body: {
        content: [
          grant("USER", outsider.id, "READ"),
          grant("USER", crypto.randomUUID(), "READ"),
          grant("USER", foreigner.id, "WRITE"),
          grant("GROUP", crypto.randomUUID(), "READ"),
          grant("GROUP", reader.id, "READ"), // a user's id given as a group
          grant("GROUP", readers.id, "READ"),
          grant("GROUP", foreignGroup.id, "READ"),
        ],
      },
    });
    expectError(res, 400, "VALIDATION_FAILED", [
      "body.content[1].principalId",
      "body.content[2].principalId",
      "body.content[3].principalId",
      "body.content[4].principalId",
      "body.content[6].principalId",
    ]);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("refuses malformed entries with 400 naming the member", async () => {
    const source = await createSource(creator);
    const path = `${sourcePath(source.id)}/permissions`;
    const res = await call("PUT", path, {
      as: as(creator),
      body: { content: [{ principalType: "ROLE", principalId: reader.id, permission: "READ" }, { principalType: "USER", principalId: reader.id, permission: "OWN" }] },
    });
    expectError(res, 400, "VALIDATION_FAILED", ["body.content[0].principalType", "body.content[1].permission"]);
    const dup = await call("PUT", path, { as: as(creator), body: { content: [grant("USER", reader.id, "READ"), grant("USER", reader.id, "WRITE")] } });
    expectError(dup, 400, "VALIDATION_FAILED", ["body.content[1].principalId"]);
  });

  it("need WRITE: a reader gets 403, another account 404", async () => {
    const source = await createSource(creator);
    const path = `${sourcePath(source.id)}/permissions`;
    await call("PUT", path, { as: as(creator), body: { content: [grant("USER", reader.id, "READ")] } });
    expectError(await call("GET", path, { as: as(reader) }), 403, "FORBIDDEN");
    expectError(await call("PUT", path, { as: as(reader), body: { content: [] } }), 403, "FORBIDDEN");
    expectError(await call("GET", path, { as: as(outsider) }), 403, "FORBIDDEN");
    expectError(await call("GET", path, { as: as(foreigner) }), 404, "NOT_FOUND");
    expectError(await call("PUT", path, { as: as(foreigner), body: { content: [] } }), 404, "NOT_FOUND");
    expect((await call("GET", path, { as: as(creator) })).json.content).toEqual([grant("USER", reader.id, "READ")]);
  });

  it("a READ grant to a group lets its members read: list and GET work, writes are 403", async () => {
    const source = await createSource(creator, { fields: [nativeField("a", { name: "a" })] });
    const path = `${sourcePath(source.id)}/permissions`;
    expectError(await call("GET", sourcePath(source.id), { as: as(reader) }), 403, "FORBIDDEN");

    const put = await call("PUT", path, { as: as(creator), body: { content: [grant("GROUP", readers.id, "READ")] } });
    expect(put.status, put.text).toBe(200);

    const read = await call("GET", sourcePath(source.id), { as: as(reader) });
    expect(read.status, read.text).toBe(200);
    expect(read.json.id).toBe(source.id);
    const list = (await pagesForward("/api/sources", reader, 1000)).flatMap((p) => p.json.content.map((s: { id: string }) => s.id));
    expect(list).toContain(source.id);
    expect((await call("GET", fieldPath(source.id, "a"), { as: as(reader) })).status).toBe(200);

    const before = await dbSnapshot();
    expectError(await call("PATCH", sourcePath(source.id), { as: as(reader), body: { name: "mine now" } }), 403, "FORBIDDEN");
    expectError(await call("POST", fieldsPath(source.id), { as: as(reader), body: nativeField("b") }), 403, "FORBIDDEN");
    expect(await dbSnapshot()).toEqual(before);

    // A user outside the group still has nothing.
    expectError(await call("GET", sourcePath(source.id), { as: as(outsider) }), 403, "FORBIDDEN");

    // A WRITE grant to the group lets its members change the source.
    await call("PUT", path, { as: as(creator), body: { content: [grant("GROUP", readers.id, "WRITE")] } });
    const patched = await call("PATCH", sourcePath(source.id), { as: as(reader), body: { description: "group write" } });
    expect(patched.status, patched.text).toBe(200);

    // Revoking the grant takes the source away again.
    await call("PUT", path, { as: as(creator), body: { content: [] } });
    expectError(await call("GET", sourcePath(source.id), { as: as(reader) }), 403, "FORBIDDEN");
    const after = (await pagesForward("/api/sources", reader, 1000)).flatMap((p) => p.json.content.map((s: { id: string }) => s.id));
    expect(after).not.toContain(source.id);
  });

  it("a READ grant to a user gives READ only; the owner keeps WRITE whatever the list says", async () => {
    const source = await createSource(creator);
    const path = `${sourcePath(source.id)}/permissions`;
    await call("PUT", path, { as: as(creator), body: { content: [grant("USER", outsider.id, "READ"), grant("USER", creator.id, "READ")] } });
    expect((await call("GET", sourcePath(source.id), { as: as(outsider) })).status).toBe(200);
    expectError(await call("PATCH", sourcePath(source.id), { as: as(outsider), body: { enabled: false } }), 403, "FORBIDDEN");
    const owner = await call("PATCH", sourcePath(source.id), { as: as(creator), body: { enabled: false } });
    expect(owner.status, owner.text).toBe(200);
  });
});

describe("E16 GET /api/dashboards/sources (deprecated)", () => {
  it("lists {id, name} of the readable sources, with a Deprecation header", async () => {
    const account = await createAccount();
    const owner = await createUser(account.id, { roles: ["ROLE_CREATE_SOURCES"] });
    const plain = await createUser(account.id);
    const b = await createSource(owner, { name: "b-source" });
    const a = await createSource(owner, { name: "a-source" });
    const hidden = await createSource(owner, { name: "c-hidden" });
    await call("PUT", `${sourcePath(a.id)}/permissions`, { as: as(owner), body: { content: [grant("USER", plain.id, "READ")] } });

    const res = await call("GET", "/api/dashboards/sources", { as: as(owner) });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("Deprecation")).toBe("true");
    // Deprecated operations also say when they stop working (RFC 8594).
    expect(res.headers.get("Sunset")).toBe("Fri, 31 Dec 2027 23:59:59 GMT");
    expect(res.headers.get("Content-Type")).toBe(VENDOR_JSON);
    expect(res.json).toEqual({
      content: [
        { id: a.id, name: "a-source" },
        { id: b.id, name: "b-source" },
        { id: hidden.id, name: "c-hidden" },
      ],
    });

    const limited = await call("GET", "/api/dashboards/sources", { as: as(plain) });
    expect(limited.json).toEqual({ content: [{ id: a.id, name: "a-source" }] });
    expect(limited.headers.get("Deprecation")).toBe("true");

    const foreign = await call("GET", "/api/dashboards/sources", { as: as(foreigner) });
    expect(foreign.json.content.map((s: { id: string }) => s.id)).not.toContain(a.id);
  });

  it("answers 401 without credentials", async () => {
    expectUnauthenticated(await call("GET", "/api/dashboards/sources", { as: null }), "/api/dashboards/sources");
  });

  it("is marked deprecated in the OpenAPI document", async () => {
    const doc = await call("GET", "/api/openapi.json", { as: null });
    expect(doc.status).toBe(200);
    const op = doc.json.paths["/api/dashboards/sources"].get;
    expect(op.deprecated).toBe(true);
    expect(doc.json.paths["/api/sources"].get.deprecated).toBeUndefined();
  });
});

describe("E14 source security (experimental)", () => {
  it("reads the defaults without X-Enable-Preview and marks the response experimental", async () => {
    const source = await createSource(creator);
    const res = await call("GET", `${sourcePath(source.id)}/security`, { as: as(creator) });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("X-API-Stability")).toBe("experimental");
    expect(res.json).toEqual({ fieldsSecurity: { enabled: false }, customMetricsSecurity: { enabled: false } });
  });

  it("PUT (WRITE) changes both settings; a reader sees them and cannot change them", async () => {
    const source = await createSource(creator);
    const path = `${sourcePath(source.id)}/security`;
    const put = await call("PUT", path, { as: as(creator), body: { fieldsSecurity: { enabled: true }, customMetricsSecurity: { enabled: false } } });
    expect(put.status, put.text).toBe(200);
    expect(put.headers.get("X-API-Stability")).toBe("experimental");
    expect(put.json).toEqual({ fieldsSecurity: { enabled: true }, customMetricsSecurity: { enabled: false } });

    const again = await call("PUT", path, { as: as(admin), body: { fieldsSecurity: { enabled: false }, customMetricsSecurity: { enabled: true } } });
    expect(again.json).toEqual({ fieldsSecurity: { enabled: false }, customMetricsSecurity: { enabled: true } });

    await call("PUT", `${sourcePath(source.id)}/permissions`, { as: as(creator), body: { content: [grant("USER", reader.id, "READ")] } });
    const read = await call("GET", path, { as: as(reader) });
    expect(read.status).toBe(200);
    expect(read.json).toEqual({ fieldsSecurity: { enabled: false }, customMetricsSecurity: { enabled: true } });

    const before = await dbSnapshot();
    const refused = await call("PUT", path, { as: as(reader), body: { fieldsSecurity: { enabled: true }, customMetricsSecurity: { enabled: true } } });
    expectError(refused, 403, "FORBIDDEN");
    expect(refused.headers.get("X-API-Stability")).toBe("experimental");
    expectError(await call("GET", path, { as: as(outsider) }), 403, "FORBIDDEN");
    expectError(await call("GET", path, { as: as(foreigner) }), 404, "NOT_FOUND");
    expectError(await call("PUT", path, { as: as(foreigner), body: { fieldsSecurity: { enabled: true }, customMetricsSecurity: { enabled: true } } }), 404, "NOT_FOUND");
    expect(await dbSnapshot()).toEqual(before);
  });

  it("refuses an invalid body with 400 naming each member", async () => {
    const source = await createSource(creator);
    const before = await dbSnapshot();
    const res = await call("PUT", `${sourcePath(source.id)}/security`, { as: as(creator), body: { fieldsSecurity: { enabled: "yes" } } });
    expectError(res, 400, "VALIDATION_FAILED", ["body.fieldsSecurity.enabled", "body.customMetricsSecurity"]);
    expect(await dbSnapshot()).toEqual(before);
  });

  it("is marked experimental in the OpenAPI document", async () => {
    const doc = await call("GET", "/api/openapi.json", { as: null });
    const ops = doc.json.paths["/api/sources/{sourceId}/security"];
    expect(ops.get["x-stability"]).toBe("experimental");
    expect(ops.put["x-stability"]).toBe("experimental");
  });
});

describe("the SOURCE quota", () => {
  it("refuses a source past the limit with 409 QUOTA_EXCEEDED; consumption is the live count", async () => {
    const account = await createAccount();
    const owner = await createUser(account.id, { roles: ["ROLE_CREATE_SOURCES"] });
    const set = await call("PUT", "/api/quota", { body: { accountId: account.id, quotas: [{ type: "SOURCE", limit: 1 }] } });
    expect(set.status, set.text).toBe(201);
    expect(set.json.quotas).toEqual([{ type: "SOURCE", limit: 1, consumption: 0 }]);

    const first = await createSource(owner);
    const before = await dbSnapshot();
    const second = await call("POST", "/api/sources", { as: as(owner), body: { name: sourceName() } });
    expectError(second, 409, "QUOTA_EXCEEDED");
    expect(await dbSnapshot()).toEqual(before);

    // Other accounts are not limited by it.
    await createSource(creator);

    const quota = await call("GET", `/api/quota/${account.id}`);
    expect(quota.status).toBe(200);
    expect(quota.json.quotas).toEqual([{ type: "SOURCE", limit: 1, consumption: 1 }]);

    expect((await call("DELETE", sourcePath(first.id), { as: as(owner) })).status).toBe(204);
    expect((await call("GET", `/api/quota/${account.id}`)).json.quotas).toEqual([{ type: "SOURCE", limit: 1, consumption: 0 }]);
    const again = await call("POST", "/api/sources", { as: as(owner), body: { name: sourceName() } });
    expect(again.status, again.text).toBe(201);
    expect((await call("GET", `/api/quota/${account.id}`)).json.quotas).toEqual([{ type: "SOURCE", limit: 1, consumption: 1 }]);
  });
});
