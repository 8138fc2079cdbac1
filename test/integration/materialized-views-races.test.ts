import { beforeAll, describe, expect, it } from "vitest";
import { as, call, createAccount, createUser, databaseOf, expectError, type TestUser } from "./helpers";
import { connectionBody, createConnection } from "./connection-helpers";
import { createOrdersSource, createView, danglingViews, postView, viewBody, viewName, viewPath } from "./materialized-view-helpers";
import { sourcePath } from "./source-helpers";

/**
 * A view holds its source and its target connection: their deletes are refused while it names them.
 * Fired together with the write that takes them up, exactly one of the two wins, and no view is ever
 * left naming a source or a connection that is gone (the foreign keys and the batch guards hold it
 * inside each write's own transaction, whatever the interleaving of the reads before).
 */
let admin: TestUser;
const ROUNDS = 8;

/**
 * Sends the second request of a pair at once in even rounds, a task later in odd ones, so that the
 * rounds interleave the two requests' reads and writes differently. Which one wins is never
 * asserted, only that the outcome is one of the two consistent ones.
 */
async function later<T>(round: number, send: () => Promise<T>): Promise<T> {
  if (round % 2 === 1) await new Promise((resolve) => setTimeout(resolve, 0));
  return send();
}

beforeAll(async () => {
  const account = await createAccount();
  admin = await createUser(account.id, { groups: ["Users", "Administrators"] });
});

describe("a view racing the delete of what it names", () => {
  it("a view create against the source's delete: the view and a refused delete, or the delete and a refused view", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const source = await createOrdersSource(admin);
      const [created, deleted] = await Promise.all([postView(admin, viewBody(source.id)), later(round, () => call("DELETE", sourcePath(source.id), { as: as(admin) }))]);
      if (created.status === 200) {
        const refusal = expectError(deleted, 400, "VALIDATION_FAILED", [source.name]);
        expect(refusal.problems[0].dependencies[source.name].accessible).toEqual([{ id: created.json.id, name: created.json.name, type: "MATERIALIZED_VIEW" }]);
        expect((await call("GET", sourcePath(source.id), { as: as(admin) })).status).toBe(200);
      } else {
        expect(deleted.status, deleted.text).toBe(204);
        expectError(created, 400, "VALIDATION_FAILED", ["body.definition.sourceId"]);
      }
    }
    expect(await danglingViews()).toEqual([]);
  });

  it("a view moved by PUT to a source being deleted: the move or the delete", async () => {
    const home = await createOrdersSource(admin);
    const view = await createView(admin, viewBody(home.id));
    for (let round = 0; round < ROUNDS; round++) {
      const target = await createOrdersSource(admin);
      const [moved, deleted] = await Promise.all([
        call("PUT", viewPath(view.id), { as: as(admin), body: viewBody(target.id, {}, { name: view.name }) }),
        later(round, () => call("DELETE", sourcePath(target.id), { as: as(admin) })),
      ]);
      if (moved.status === 200) expectError(deleted, 400, "VALIDATION_FAILED", [target.name]);
      else {
        expect(deleted.status, deleted.text).toBe(204);
        expectError(moved, 400, "VALIDATION_FAILED", ["body.definition.sourceId"]);
      }
    }
    expect(await danglingViews()).toEqual([]);
  });

  it("a view create or replace naming a target connection against the connection's delete: one of them wins", async () => {
    const source = await createOrdersSource(admin);
    const existing = await createView(admin, viewBody(source.id));
    for (let round = 0; round < ROUNDS * 2; round++) {
      const connection = await createConnection(admin, connectionBody(viewName("Store")));
      const body = viewBody(source.id, {}, { storageSettings: { targetStorage: { connectionId: connection.id } } });
      // The first rounds create views, the last ones move an existing view's storage there.
      const write = round < ROUNDS ? postView(admin, body) : call("PUT", viewPath(existing.id), { as: as(admin), body: { ...body, name: existing.name } });
      const [created, deleted] = await Promise.all([write, later(round, () => call("DELETE", `/api/connections/${connection.id}`, { as: as(admin) }))]);
      if (created.status === 200) {
        const refusal = expectError(deleted, 409, "CONNECTION_IN_USE");
        expect(refusal.problems[0].dependencies[connection.name].accessible).toEqual([{ id: created.json.id, name: created.json.name, type: "MATERIALIZED_VIEW" }]);
      } else {
        expect(deleted.status, deleted.text).toBe(204);
        expectError(created, 400, "VALIDATION_FAILED", ["body.storageSettings.targetStorage.connectionId"]);
      }
    }
    expect(await danglingViews()).toEqual([]);
  });
});

describe("the database itself holds a view's source and target connection", () => {
  it("refuses a view row naming a missing source or another account's, and the delete of a source or connection a view names", async () => {
    const source = await createOrdersSource(admin);
    const connection = await createConnection(admin, connectionBody(viewName("Held")));
    await createView(admin, viewBody(source.id, {}, { storageSettings: { targetStorage: { connectionId: connection.id } } }));
    const other = await createAccount();
    const theirs = await createOrdersSource(await createUser(other.id, { groups: ["Users", "Administrators"] }));
    // The rows are written, and deleted, on the database of admin's account.
    const db = await databaseOf(admin.accountId);
    const row = (accountId: string, sourceId: string, connectionId: string | null) =>
      db.prepare(
        `INSERT INTO materialized_views (id, account_id, name, source_id, definition, target_connection_id, definition_query, created_by_user_id, created_date, last_modified_by_user_id, last_modified_date)
         VALUES (?, ?, ?, ?, '{}', ?, 'SELECT 1', 'u', 'd', 'u', 'd')`,
      )
        .bind(crypto.randomUUID(), accountId, viewName("Raw"), sourceId, connectionId)
        .run();
    const { accountId } = admin;
    const refused = async (work: () => Promise<unknown>) => expect(await work().then(() => "stored", (e: Error) => e.message)).toMatch(/FOREIGN KEY constraint failed/);
    await refused(() => row(accountId, crypto.randomUUID(), null));
    await refused(() => row(accountId, theirs.id, null));
    await refused(() => row(accountId, source.id, "no-such-connection"));
    await refused(() => db.prepare("DELETE FROM sources WHERE id = ?").bind(source.id).run());
    await refused(() => db.prepare("DELETE FROM connections WHERE account_id = ? AND id = ?").bind(accountId, connection.id).run());
    expect(await danglingViews()).toEqual([]);
  });
});

describe("at most 100 views per account", () => {
  it("simultaneous creates cannot pass the limit: at 95, ten together make exactly five", async () => {
    const account = await createAccount();
    const owner = await createUser(account.id, { groups: ["Users", "Administrators"] });
    const source = await createOrdersSource(owner);
    for (let i = 0; i < 95; i++) await createView(owner, viewBody(source.id));
    const results = await Promise.all(Array.from({ length: 10 }, () => postView(owner, viewBody(source.id))));
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    for (const refused of results.filter((r) => r.status !== 200)) expectError(refused, 409, "TOO_MANY_MATERIALIZED_VIEWS");
    expect((await call("GET", "/api/materialized-views", { as: as(owner) })).json.content).toHaveLength(100);
  }, 60_000);
});
