import { describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, dbSnapshot, expectError, PASSWORD, unique } from "./helpers";
import { connectionBody, createConnection } from "./connection-helpers";

/** The reference product's member names accepted on input beside ours (README, "Aliases"). */

describe("users: fullname for fullName", () => {
  it("creates and updates with the alias; answers with our name", async () => {
    const account = await createAccount();
    const name = unique("alias-user");
    const created = await call("POST", "/api/users", { body: { name, password: PASSWORD, accountId: account.id, fullname: "Grace Hopper" } });
    expect(created.status, created.text).toBe(201);
    expect(created.json.fullName).toBe("Grace Hopper");
    expect(created.json).not.toHaveProperty("fullname");

    const updated = await call("PUT", `/api/users/${created.json.id}`, { body: { name, fullname: "Grace B. Hopper", fullName: "Grace B. Hopper" } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json.fullName).toBe("Grace B. Hopper");
  });

  it("refuses the two names with different values (400 naming the alias) and changes nothing", async () => {
    const account = await createAccount();
    const before = await dbSnapshot();
    const res = await call("POST", "/api/users", { body: { name: unique("alias-user"), password: PASSWORD, accountId: account.id, fullName: "A", fullname: "B" } });
    expectError(res, 400, "VALIDATION_FAILED", ["body.fullname"]);
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("accounts: the reference product's AccountUserResource on create", () => {
  it("takes the account's members inside `account`, with an empty `users`", async () => {
    const name = unique("wrapped");
    const res = await call("POST", "/api/accounts", { body: { account: { name, disabled: false, senderDisplayName: "Wrapped Ltd" }, users: [] } });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ name, disabled: false, senderDisplayName: "Wrapped Ltd", attributes: [] });
    const groups = await call("GET", `/api/groups?accountId=${res.json.id}`);
    expect(groups.json.content.map((g: { name: string }) => g.name).sort()).toEqual(["Administrators", "Users"]);
  });

  it.each([
    ["members beside `account`", { account: { name: unique("wrapped") }, name: unique("top") }, ["body.name"]],
    ["existing users to attach", { account: { name: unique("wrapped") }, users: [{ id: "u1", name: "someone" }] }, ["body.users"]],
    ["no name anywhere", { disabled: false }, ["body.name"]],
    ["an invalid wrapped member", { account: { name: "" } }, ["body.account.name"]],
  ])("refuses %s (400) and changes nothing", async (_label, body, problems) => {
    const before = await dbSnapshot();
    expectError(await call("POST", "/api/accounts", { body }), 400, "VALIDATION_FAILED", problems);
    expect(await dbSnapshot()).toEqual(before);
  });
});

describe("sources: the reference product's `storage` for connectionId and fields", () => {
  async function adminOfNewAccount() {
    const account = await createAccount();
    return createUser(account.id, { groups: ["Users", "Administrators"] });
  }
  const nativeField = (name: string) => ({ name, origin: { type: "NATIVE", nativeOrigin: { originalName: name, originalType: "INT", dataEntityId: "orders" } } });
  const storage = (entity: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    dataEntities: [{ id: "orders", name: "orders", type: "SINGLE_COLLECTION", ...entity }],
    joins: [],
    ...extra,
  });

  it("takes the data entity's connection and native fields", async () => {
    const admin = await adminOfNewAccount();
    const connection = await createConnection(admin, connectionBody(unique("warehouse")));
    const res = await call("POST", "/api/sources", {
      as: as(admin),
      body: { name: unique("Orders"), storage: storage({ singleCollection: { connectionId: connection.id, schema: "sales", collection: "orders" }, nativeFields: [nativeField("qty")] }) },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.connectionId).toBe(connection.id);
    const fields = await call("GET", `/api/sources/${res.json.id}/fields`, { as: as(admin) });
    expect(fields.json.content.map((f: { name: string }) => f.name)).toEqual(["qty"]);
  });

  it("names the alias in its refusals, and changes nothing", async () => {
    const admin = await adminOfNewAccount();
    const mine = await createConnection(admin, connectionBody(unique("warehouse")));
    const otherAdmin = await adminOfNewAccount();
    const theirs = await createConnection(otherAdmin, connectionBody(unique("warehouse")));
    const attempt = (body: Record<string, unknown>) => call("POST", "/api/sources", { as: as(admin), body: { name: unique("Orders"), ...body } });
    const before = await dbSnapshot();
    const at = "body.storage.dataEntities[0]";
    expectError(await attempt({ connectionId: mine.id, storage: storage({ singleCollection: { connectionId: theirs.id } }) }), 400, "VALIDATION_FAILED", [`${at}.singleCollection.connectionId`]);
    // Another account's connection, named through the alias: the same 400 as a missing one.
    expectError(await attempt({ storage: storage({ singleCollection: { connectionId: theirs.id } }) }), 400, "VALIDATION_FAILED", [`${at}.singleCollection.connectionId`]);
    expectError(await attempt({ fields: [nativeField("a")], storage: storage({ nativeFields: [nativeField("b")] }) }), 400, "VALIDATION_FAILED", [`${at}.nativeFields`]);
    expectError(
      await attempt({ storage: storage({ nativeFields: [{ name: "d", origin: { type: "DERIVED", derivedOrigin: { expression: "1 + 1" } } }] }) }),
      400,
      "VALIDATION_FAILED",
      [`${at}.nativeFields[0].origin.type`],
    );
    expectError(await attempt({ storage: { dataEntities: [{ type: "SINGLE_COLLECTION" }, { type: "SINGLE_COLLECTION" }] } }), 400, "VALIDATION_FAILED", ["body.storage.dataEntities"]);
    expectError(await attempt({ storage: storage({}, { joins: [{ type: "INNER" }] }) }), 400, "VALIDATION_FAILED", ["body.storage.joins"]);
    expect(await dbSnapshot()).toEqual(before);
  });
});
