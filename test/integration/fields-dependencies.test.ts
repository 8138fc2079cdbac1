import { beforeAll, describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, databaseOf, dbSnapshot, expectError, type TestUser } from "./helpers";
import { createSource, derivedField, fieldPath, fieldsPath, hierarchyField, nativeField, sourcePath, STANDARD_FIELDS } from "./source-helpers";

/**
 * A field that a derived field, a custom metric or a hierarchy uses can be neither deleted nor
 * retyped; the 400 names every user as ObjectUsage. Once the users are gone, it can.
 */
let owner: TestUser;

beforeAll(async () => {
  const account = await createAccount();
  owner = await createUser(account.id, { roles: ["ROLE_CREATE_SOURCES"] });
});

const post = (sourceId: string, body: unknown) => call("POST", fieldsPath(sourceId), { as: as(owner), body });
const put = (sourceId: string, name: string, body: unknown) => call("PUT", fieldPath(sourceId, name), { as: as(owner), body });
const remove = (sourceId: string, name: string) => call("DELETE", fieldPath(sourceId, name), { as: as(owner) });
const putMetric = (sourceId: string, name: string, expression: string) =>
  call("PUT", `${sourcePath(sourceId)}/custom-metrics/${name}`, { as: as(owner), body: { expression } });

/** The id of a source item, read from its account's database (fields and metrics do not show their ids). */
async function itemId(sourceId: string, name: string): Promise<string> {
  const db = await databaseOf(owner.accountId);
  const row = await db.prepare("SELECT id FROM source_items WHERE source_id = ? AND name = ?").bind(sourceId, name).first<{ id: string }>();
  if (!row) throw new Error(`no item ${name}`);
  return row.id;
}

type Usage = { id: string; name: string; type: string };

/** Asserts the 400 that refuses to delete or retype `name`, used by exactly `users`. */
function expectInUse(res: Awaited<ReturnType<typeof call>>, name: string, users: Usage[]) {
  const body = expectError(res, 400, "VALIDATION_FAILED", [name]);
  const usage = body.problems[0].dependencies[name];
  expect(usage.hasOtherUsages).toBe(false);
  const sortByName = (list: Usage[]) => [...list].sort((a, b) => (a.name < b.name ? -1 : 1));
  expect(sortByName(usage.accessible)).toEqual(sortByName(users));
  for (const u of users) expect(body.problems[0].message).toContain(u.name);
}

const USERS = [
  {
    kind: "DERIVED_FIELD",
    create: (sourceId: string) => post(sourceId, derivedField("price_twice", "price * 2")),
    name: "price_twice",
    drop: (sourceId: string) => remove(sourceId, "price_twice"),
  },
  {
    kind: "CUSTOM_METRIC",
    create: (sourceId: string) => putMetric(sourceId, "m", "sum(price)"),
    name: "m",
    drop: (sourceId: string) => call("DELETE", `${sourcePath(sourceId)}/custom-metrics/m`, { as: as(owner) }),
  },
  {
    kind: "HIERARCHY",
    // price (NUMBER) is the parent of another NUMBER field.
    create: async (sourceId: string) => {
      const child = await post(sourceId, nativeField("cost", { name: "cost" }, { originalType: "DECIMAL" }));
      if (child.status !== 201) return child;
      return post(sourceId, hierarchyField("price_levels", "cost", "price"));
    },
    name: "price_levels",
    drop: (sourceId: string) => remove(sourceId, "price_levels"),
  },
] as const;

describe.each(USERS)("a field used by a $kind", ({ kind, create, name, drop }) => {
  it("cannot be deleted; the 400 names the user; after removing the user it can", async () => {
    const source = await createSource(owner, { fields: STANDARD_FIELDS });
    const created = await create(source.id);
    expect(created.status, created.text).toBe(201);
    const user = { id: await itemId(source.id, name), name, type: kind };

    const before = await dbSnapshot();
    expectInUse(await remove(source.id, "price"), "price", [user]);
    expect(await dbSnapshot()).toEqual(before);
    expect((await call("GET", fieldPath(source.id, "price"), { as: as(owner) })).status).toBe(200);

    const dropped = await drop(source.id);
    expect(dropped.status, dropped.text).toBe(204);
    const deleted = await remove(source.id, "price");
    expect(deleted.status, deleted.text).toBe(204);
    expectError(await call("GET", fieldPath(source.id, "price"), { as: as(owner) }), 404, "NOT_FOUND");
  });

  it("cannot be retyped by PUT (another dataType or another origin type), but can be otherwise replaced", async () => {
    const source = await createSource(owner, { fields: STANDARD_FIELDS });
    const created = await create(source.id);
    expect(created.status, created.text).toBe(201);
    const user = { id: await itemId(source.id, name), name, type: kind };

    const before = await dbSnapshot();
    expectInUse(await put(source.id, "price", nativeField("price", { dataType: "ATTRIBUTE" })), "price", [user]);
    expectInUse(await put(source.id, "price", nativeField("price", {}, { originalType: "BIGINT" })), "price", [user]);
    expectInUse(await put(source.id, "price", derivedField(undefined, "LENGTH(carrier)")), "price", [user]);
    // Same data type (NUMBER), other origin type.
    expectInUse(await put(source.id, "price", derivedField(undefined, "qty * 1.5")), "price", [user]);
    expect(await dbSnapshot()).toEqual(before);

    const relabelled = await put(source.id, "price", nativeField("PRICE_EUR", { label: "Price (EUR)" }, { originalType: "NUMERIC" }));
    expect(relabelled.status, relabelled.text).toBe(200);
    expect(relabelled.json).toMatchObject({ label: "Price (EUR)", dataType: "NUMBER", originalFieldName: "PRICE_EUR" });

    expect((await drop(source.id)).status).toBe(204);
    const retyped = await put(source.id, "price", nativeField("price", { dataType: "ATTRIBUTE" }));
    expect(retyped.status, retyped.text).toBe(200);
    expect(retyped.json.dataType).toBe("ATTRIBUTE");
  });
});

describe("several users", () => {
  it("are all listed, and deletion works only once the last is gone", async () => {
    const source = await createSource(owner, { fields: STANDARD_FIELDS });
    for (const u of USERS) expect((await u.create(source.id)).status).toBe(201);
    const labelled = await post(source.id, hierarchyField("cities", "dest_city", "origin_city", "carrier"));
    expect(labelled.status, labelled.text).toBe(201);

    const band = await post(source.id, derivedField("price_band", "FLOOR(price / 100) * 1.0"));
    expect(band.status, band.text).toBe(201);
    const bands = await post(source.id, hierarchyField("bands", "price_band", "cost"));
    expect(bands.status, bands.text).toBe(201);

    const priceUsers = [
      { id: await itemId(source.id, "price_twice"), name: "price_twice", type: "DERIVED_FIELD" },
      { id: await itemId(source.id, "m"), name: "m", type: "CUSTOM_METRIC" },
      { id: await itemId(source.id, "price_levels"), name: "price_levels", type: "HIERARCHY" },
      { id: await itemId(source.id, "price_band"), name: "price_band", type: "DERIVED_FIELD" },
    ];
    const before = await dbSnapshot();
    expectInUse(await remove(source.id, "price"), "price", priceUsers);
    // A hierarchy's label field and a derived field used by a hierarchy are protected alike.
    expectInUse(await remove(source.id, "carrier"), "carrier", [{ id: await itemId(source.id, "cities"), name: "cities", type: "HIERARCHY" }]);
    expectInUse(await remove(source.id, "price_band"), "price_band", [{ id: await itemId(source.id, "bands"), name: "bands", type: "HIERARCHY" }]);
    expect(await dbSnapshot()).toEqual(before);

    for (const u of USERS) expect((await u.drop(source.id)).status).toBe(204);
    expectInUse(await remove(source.id, "price"), "price", [{ id: await itemId(source.id, "price_band"), name: "price_band", type: "DERIVED_FIELD" }]);
    expect((await remove(source.id, "bands")).status).toBe(204);
    expect((await remove(source.id, "price_band")).status).toBe(204);
    expect((await remove(source.id, "price")).status).toBe(204);
    expect((await remove(source.id, "cities")).status).toBe(204);
    expect((await remove(source.id, "carrier")).status).toBe(204);
  });

  it("a derived field that changes its expression releases the fields it no longer uses", async () => {
    const source = await createSource(owner, { fields: STANDARD_FIELDS });
    expect((await post(source.id, derivedField("d", "price * qty"))).status).toBe(201);
    const changed = await put(source.id, "d", derivedField("d", "qty * 2"));
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json.origin.derivedOrigin.referencedFieldNames).toEqual(["qty"]);
    expect((await remove(source.id, "price")).status).toBe(204);
    expectInUse(await remove(source.id, "qty"), "qty", [{ id: await itemId(source.id, "d"), name: "d", type: "DERIVED_FIELD" }]);
  });
});
