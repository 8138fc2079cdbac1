import { beforeAll, describe, expect, it } from "vitest";
import { call, SUPERVISOR, type Credentials } from "./helpers";
import { eventsOf } from "./audit-helpers";
import { allowedCaller } from "./harness/access";
import { loadContract, type Contract } from "./harness/contract";
import { fillTemplate, type Operation } from "./harness/document";
import { createWorld, FIXTURES, type World } from "./harness/fixtures";

/**
 * Generated from the OpenAPI document: every write operation (POST, PUT, PATCH, DELETE) is either
 * listed in AUDITED with the actions its success must record, or in NOT_A_CHANGE with the reason it
 * stores nothing an auditor asks about. An operation in neither fails, so a new write route cannot
 * ship without its audit expectation. Each audited one is performed with the harness fixtures, and
 * its request's events must be exactly the listed actions, by the caller, on the object the path names.
 */
const AUDITED: Record<string, string[]> = {
  "POST /api/accounts": ["account.create", "group.create", "group.create"],
  "PUT /api/accounts/{id}": ["account.update"],
  "DELETE /api/accounts/{id}": ["account.delete"],
  "PATCH /api/accounts/{id}": ["account.update"],
  // The fixture names the administrators already there: nothing changes (audit-races.test.ts changes them).
  "PUT /api/accounts/{accountId}/admins": [],
  // The fixture moves the account to the shard it is on, which changes nothing (test/integration/shards/move-route.test.ts moves for real).
  "POST /api/accounts/{id}/move": [],
  // One event per object written: the fixture's bundle adds one group.
  "POST /api/accounts/{accountId}/import": ["group.create"],
  "POST /api/users": ["user.create"],
  "PUT /api/users/{id}": ["user.update"],
  "PATCH /api/users/{id}": ["user.update"],
  "DELETE /api/users/{id}": ["user.delete"],
  "POST /api/groups": ["group.create"],
  "PUT /api/groups/{id}": ["group.update"],
  "PATCH /api/groups/{id}": ["group.update"],
  "DELETE /api/groups/{id}": ["group.delete"],
  "PUT /api/quota": ["quota.create|quota.update"],
  "DELETE /api/quota/{accountId}": ["quota.delete"],
  "POST /api/sources": ["source.create"],
  "POST /api/sources/import": ["source.create"],
  "PATCH /api/sources/{sourceId}": ["source.update"],
  "PUT /api/sources/{sourceId}": ["source.update"],
  "DELETE /api/sources/{sourceId}": ["source.delete"],
  "PUT /api/sources/{sourceId}/permissions": ["source.update"],
  "PUT /api/sources/{sourceId}/security": ["source.update"],
  "POST /api/sources/{sourceId}/fields": ["field.create"],
  "PUT /api/sources/{sourceId}/fields/{fieldName}": ["field.create|field.update"],
  "PATCH /api/sources/{sourceId}/fields/{fieldName}": ["field.update"],
  "DELETE /api/sources/{sourceId}/fields/{fieldName}": ["field.delete"],
  "POST /api/sources/{sourceId}/custom-metrics": ["custom-metric.create"],
  "PUT /api/sources/{sourceId}/custom-metrics/{customMetricName}": ["custom-metric.create|custom-metric.update"],
  "PATCH /api/sources/{sourceId}/custom-metrics/{customMetricName}": ["custom-metric.update"],
  "DELETE /api/sources/{sourceId}/custom-metrics/{customMetricName}": ["custom-metric.delete"],
  "POST /api/calendars": ["calendar.create"],
  "PUT /api/calendars/{calendarId}": ["calendar.update"],
  "PATCH /api/calendars/{calendarId}": ["calendar.update"],
  "DELETE /api/calendars/{calendarId}": ["calendar.delete"],
  "POST /api/json-datasets": ["json-dataset.create"],
  "PUT /api/json-datasets/{id}": ["json-dataset.update"],
  "PATCH /api/json-datasets/{id}": ["json-dataset.update"],
  "DELETE /api/json-datasets/{id}": ["json-dataset.delete"],
  "POST /api/folders": ["folder.create"],
  "PATCH /api/folders/{id}": ["folder.update"],
  "DELETE /api/folders/{id}": ["folder.delete"],
  "PUT /api/folders/{id}/permissions": ["folder.update"],
  "PUT /api/folders/{id}/items/{itemType}/{itemId}": ["folder.update"],
  "DELETE /api/folders/{id}/items/{itemType}/{itemId}": ["folder.update"],
  "POST /api/trusted-access/clients": ["trusted-access-client.create"],
  "PATCH /api/trusted-access/clients/{id}": ["trusted-access-client.update"],
  "DELETE /api/trusted-access/clients/{id}": ["trusted-access-client.delete"],
  "POST /api/trusted-access/clients/{id}/secret": ["client.rotate-secret"],
  "POST /api/trusted-access/push/tokens": ["user.create|user.update", "token.issue"],
  "POST /api/trusted-access/pull/tokens": ["token.issue"],
  "DELETE /api/trusted-access/tokens/{tokenId}": ["token.revoke"],
  "POST /api/connection/types": ["connection-type.create"],
  "PUT /api/connection/types/{id}": ["connection-type.update"],
  "PATCH /api/connection/types/{id}": ["connection-type.update"],
  "DELETE /api/connection/types/{id}": ["connection-type.delete"],
  "PUT /api/connection/types/{id}/accounts": ["connection-type.update"],
  "POST /api/connections": ["connection.create"],
  "PUT /api/connections/{connectionId}": ["connection.create|connection.update"],
  "PATCH /api/connections/{connectionId}": ["connection.update"],
  "DELETE /api/connections/{connectionId}": ["connection.delete"],
  "POST /api/materialized-views": ["materialized-view.create"],
  "PUT /api/materialized-views/{id}": ["materialized-view.update"],
  "PATCH /api/materialized-views/{id}": ["materialized-view.update"],
  "DELETE /api/materialized-views/{id}": ["materialized-view.delete"],
  "POST /api/webhooks": ["webhook.create"],
  "PATCH /api/webhooks/{id}": ["webhook.update"],
  "DELETE /api/webhooks/{id}": ["webhook.delete"],
  "POST /api/webhooks/{id}/secret": ["webhook.update"],
};

const NOT_A_CHANGE: Record<string, string> = {
  "PATCH /api/quota/refresh/{accountId}": "recomputes consumption from live objects: a read",
  "POST /api/sources/{sourceId}/fields/validate": "checks an expression, stores nothing",
  "POST /api/sources/{sourceId}/custom-metrics/validate": "checks an expression, stores nothing",
  "POST /api/connections/validate": "tests a connection, stores nothing",
  "POST /api/connections/{connectionId}/preview": "reads the data store, stores nothing",
  "POST /api/connections/{connectionId}/test": "tests a stored connection against its data store, stores nothing",
  "PUT /api/accounts/{accountId}/users": "a user leaves its account only by being deleted: the list must name every user already there, so it changes nothing",
  "POST /api/sources/data-entities/describe": "reads the data store, stores nothing",
  "PUT /api/folders/tree-state": "the caller's own expanded folders in its tree view: a display preference, not a change an auditor asks about",
  "POST /api/webhooks/{id}/test": "sends a ping, stores nothing",
  "POST /api/webhooks/{id}/deliveries/{deliveryId}/retry": "delivery bookkeeping of an event already audited: the delivery is tried again",
};

let contract: Contract;
let world: World;

beforeAll(async () => {
  contract = await loadContract();
  world = await createWorld("Audit");
}, 60_000);

const isWrite = (op: Operation) => op.method !== "GET";

function actorOf(who: Credentials): { actorType: string; actorName?: string } {
  if (who && "username" in who && who.username === SUPERVISOR.username) return { actorType: "SUPERVISOR" };
  if (who && "username" in who && who.username === world.client.username) return { actorType: "TRUSTED_CLIENT" };
  return { actorType: "USER", actorName: world.admin.username };
}

describe("audit coverage, generated from the document", () => {
  it("every documented write operation has an audit expectation", () => {
    const missing = contract.operations.filter(isWrite).filter((op) => !(op.key in AUDITED) && !(op.key in NOT_A_CHANGE));
    expect(missing.map((op) => op.key), "write operations with no audit expectation: add them to AUDITED or NOT_A_CHANGE").toEqual([]);
    const stale = [...Object.keys(AUDITED), ...Object.keys(NOT_A_CHANGE)].filter((key) => !contract.operations.some((op) => op.key === key));
    expect(stale, "expectations naming no documented operation").toEqual([]);
  });

  it("each audited write records exactly its events, by its caller, on its object", async () => {
    const failures: string[] = [];
    for (const op of contract.operations.filter((o) => o.key in AUDITED)) {
      const fixture = FIXTURES[op.template] ?? {};
      const params = fixture.params ? await fixture.params(world) : {};
      const body = fixture.bodies?.[op.method]?.(world, params);
      const query = fixture.query?.[op.method]?.(world, params);
      const who = allowedCaller(op, world);
      const path = fillTemplate(op.template, params) + (query ? `?${new URLSearchParams(query)}` : "");
      const res = await call(op.method, path, { as: who, body, headers: { "X-Enable-Preview": "true" } });
      if (res.status >= 300) {
        failures.push(`${op.key}: ${res.status} ${res.text.slice(0, 200)}`);
        continue;
      }
      const events = await eventsOf(res);
      const expected = AUDITED[op.key]!;
      const actions = events.map((e) => e.action);
      const matches = actions.length === expected.length && expected.every((alternatives, i) => alternatives.split("|").includes(actions[i]!));
      if (!matches) failures.push(`${op.key}: recorded [${actions.join(", ")}], expected [${expected.join(", ")}]`);
      const actor = actorOf(who);
      for (const e of events) {
        if (e.actorType !== actor.actorType || (actor.actorName && e.actorName !== actor.actorName)) failures.push(`${op.key}: actor ${e.actorType} ${e.actorName}`);
        const type = e.action === "client.rotate-secret" ? "trusted-access-client" : e.action.slice(0, e.action.lastIndexOf("."));
        if (e.targetType !== type) failures.push(`${op.key}: target type ${e.targetType} for ${e.action}`);
        // A list replacement (permissions, accounts) whose fixture writes the list already there changes no member.
        const replacesList = /\/(permissions|accounts)$/.test(op.template);
        if (e.action.endsWith(".update") && !replacesList && !(Array.isArray(e.changes) && e.changes.length > 0)) failures.push(`${op.key}: an update with no changes`);
      }
      // The object the path names (its last parameter) is the first event's target, when it names one by id.
      const last = op.pathParams.at(-1);
      const namesTarget = last !== undefined && op.template.endsWith(`{${last}}`) && !op.template.includes("/items/") && /id$/i.test(last);
      const named = namesTarget ? params[last] : undefined;
      if (named && events[0] && events[0].targetId !== named && events[0].targetType !== "token") failures.push(`${op.key}: target ${events[0].targetId}, path names ${named}`);
    }
    expect(failures).toEqual([]);
  }, 300_000);
});
