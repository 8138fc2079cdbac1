/**
 * D1 round trips of each documented operation ("METHOD template") for the registry's valid request
 * by a caller whose credentials are cached: round-trips.test.ts checks every operation against this
 * table. A new route adds its line; a change that adds a round trip to a route must say why here.
 */
export const ROUND_TRIPS: Record<string, number> = {
  "DELETE /api/accounts/{id}": 2,
  "DELETE /api/calendars/{calendarId}": 2,
  "DELETE /api/connection/types/{id}": 2,
  "DELETE /api/connections/{connectionId}": 2,
  "DELETE /api/folders/{id}": 2,
  "DELETE /api/folders/{id}/items/{itemType}/{itemId}": 2,
  "DELETE /api/groups/{id}": 2,
  "DELETE /api/json-datasets/{id}": 1,
  "DELETE /api/materialized-views/{id}": 2,
  "DELETE /api/quota/{accountId}": 2,
  "DELETE /api/sources/{sourceId}": 2,
  "DELETE /api/sources/{sourceId}/custom-metrics/{customMetricName}": 2,
  "DELETE /api/sources/{sourceId}/fields/{fieldName}": 2,
  "DELETE /api/trusted-access/clients/{id}": 2,
  "DELETE /api/trusted-access/tokens/{tokenId}": 1,
  "DELETE /api/users/{id}": 2,
  "GET /": 0,
  "GET /api/accounts": 1,
  "GET /api/accounts/name/{name}": 1,
  "GET /api/accounts/{accountId}/admins": 1,
  "GET /api/accounts/{accountId}/export": 1,
  // One read batch (the export's, for the target's state), one write batch (the whole plan).
  // The fixture's move to the shard the account is on: the directory's one read finds nothing to do.
  "POST /api/accounts/{id}/move": 1,
  "POST /api/accounts/{accountId}/import": 2,
  "GET /api/accounts/{accountId}/users": 1,
  "GET /api/accounts/{id}": 1,
  "GET /api/audit-events": 1,
  "GET /api/audit-events/{id}": 1,
  "GET /api/calendars": 1,
  "GET /api/calendars/{calendarId}": 1,
  "GET /api/calendars/{calendarId}/periods": 1,
  "GET /api/calendars/{calendarId}/periods/at": 1,
  "GET /api/connection/types": 1,
  "GET /api/connection/types/{id}": 1,
  "GET /api/connection/types/{id}/accounts": 1,
  "GET /api/connections": 1,
  "GET /api/connections/{connectionId}": 1,
  "GET /api/connections/{connectionId}/schema": 1,
  "GET /api/connections/{connectionId}/schema/{schemaName}/describe": 1,
  "GET /api/dashboards/sources": 1,
  "GET /api/folders/tree": 1,
  "GET /api/folders/{id}": 1,
  "GET /api/folders/{id}/children": 1,
  "GET /api/folders/{id}/contents": 1,
  "GET /api/folders/{id}/path": 1,
  "GET /api/folders/{id}/permissions": 1,
  "GET /api/groups": 1,
  "GET /api/groups/{id}": 1,
  "GET /api/health": 0,
  "GET /api/json-datasets": 1,
  "GET /api/json-datasets/{id}": 1,
  "GET /api/materialized-views": 1,
  "GET /api/materialized-views/{id}": 1,
  "GET /api/openapi.json": 0,
  "GET /api/quota/{accountId}": 1,
  "GET /api/sources": 1,
  // The sources with their access facts, their items, the connections they name and their types: one batch.
  "GET /api/sources/export": 1,
  "GET /api/sources/{sourceId}": 1,
  "GET /api/sources/{sourceId}/custom-metrics": 1,
  "GET /api/sources/{sourceId}/custom-metrics/{customMetricName}": 1,
  "GET /api/sources/{sourceId}/expression-syntax": 1,
  "GET /api/sources/{sourceId}/fields": 1,
  "GET /api/sources/{sourceId}/fields/{fieldName}": 1,
  "GET /api/sources/{sourceId}/permissions": 2,
  "GET /api/sources/{sourceId}/security": 1,
  "GET /api/trusted-access/clients": 1,
  "GET /api/trusted-access/clients/{id}": 1,
  "GET /api/user": 1,
  "GET /api/users": 1,
  "GET /api/users/{id}": 1,
  "GET /docs": 0,
  "PATCH /api/accounts/{id}": 3,
  "PATCH /api/calendars/{calendarId}": 3,
  "PATCH /api/connection/types/{id}": 2,
  "PATCH /api/connections/{connectionId}": 3,
  "PATCH /api/folders/{id}": 2,
  "PATCH /api/groups/{id}": 3,
  "PATCH /api/json-datasets/{id}": 2,
  "PATCH /api/materialized-views/{id}": 2,
  "PATCH /api/quota/refresh/{accountId}": 1,
  "PATCH /api/sources/{sourceId}": 2,
  "PATCH /api/sources/{sourceId}/custom-metrics/{customMetricName}": 2,
  "PATCH /api/sources/{sourceId}/fields/{fieldName}": 2,
  "PATCH /api/trusted-access/clients/{id}": 2,
  "PATCH /api/users/{id}": 3,
  "POST /api/accounts": 1,
  "POST /api/calendars": 1,
  "POST /api/connection/types": 1,
  "POST /api/connections": 2,
  "POST /api/connections/validate": 1,
  "POST /api/connections/{connectionId}/preview": 1,
  "POST /api/connections/{connectionId}/test": 1,
  "POST /api/folders": 1,
  "POST /api/groups": 1,
  "POST /api/json-datasets": 1,
  "POST /api/materialized-views": 2,
  "POST /api/sources": 1,
  "POST /api/sources/data-entities/describe": 1,
  // What the bundle names in the account (sources, connections, types, the Users group) in one batch, then one write batch.
  "POST /api/sources/import": 2,
  "POST /api/sources/{sourceId}/custom-metrics": 2,
  "POST /api/sources/{sourceId}/custom-metrics/validate": 1,
  "POST /api/sources/{sourceId}/fields": 2,
  "POST /api/sources/{sourceId}/fields/validate": 1,
  "POST /api/trusted-access/clients": 2,
  "POST /api/trusted-access/clients/{id}/secret": 2,
  "POST /api/trusted-access/pull/tokens": 2,
  "POST /api/trusted-access/push/tokens": 3,
  "POST /api/users": 2,
  "PUT /api/accounts/{accountId}/admins": 1,
  "PUT /api/accounts/{accountId}/users": 1,
  "PUT /api/accounts/{id}": 2,
  "PUT /api/calendars/{calendarId}": 2,
  "PUT /api/connection/types/{id}": 2,
  "PUT /api/connection/types/{id}/accounts": 2,
  "PUT /api/connections/{connectionId}": 2,
  "PUT /api/folders/tree-state": 2,
  "PUT /api/folders/{id}/items/{itemType}/{itemId}": 2,
  "PUT /api/folders/{id}/permissions": 2,
  "PUT /api/groups/{id}": 2,
  "PUT /api/json-datasets/{id}": 1,
  "PUT /api/materialized-views/{id}": 2,
  "PUT /api/quota": 2,
  "PUT /api/sources/{sourceId}": 2,
  "PUT /api/sources/{sourceId}/custom-metrics/{customMetricName}": 2,
  "PUT /api/sources/{sourceId}/fields/{fieldName}": 2,
  "PUT /api/sources/{sourceId}/permissions": 3,
  "PUT /api/sources/{sourceId}/security": 2,
  "PUT /api/users/{id}": 2,
  "GET /api/webhooks": 1,
  "POST /api/webhooks": 1,
  "GET /api/webhooks/{id}": 1,
  "PATCH /api/webhooks/{id}": 2,
  "DELETE /api/webhooks/{id}": 2,
  "POST /api/webhooks/{id}/secret": 2,
  "GET /api/webhooks/{id}/deliveries": 1,
  "POST /api/webhooks/{id}/deliveries/{deliveryId}/retry": 1,
  "POST /api/webhooks/{id}/test": 1,
};

/**
 * How the databases are laid out for one request (docs/sharding.md): all 0 on one database.
 * `asked`: the shards asked at once when a request names something only its shard knows (one
 * counted trip each); `others`: the shards other than the directory's database (each keeps copies of
 * the directory's connection types and stubs of its clients); `several`: 1 over several databases;
 * `apart`: 1 when the account the request acts on lives on a shard other than the directory's database.
 */
export interface Layout {
  asked: number;
  others: number;
  several: number;
  apart: number;
}

/**
 * The round trips an operation adds to its ROUND_TRIPS over several databases, for the same request
 * on a warm isolate (the caller's credentials, and the account's place, known): none on one database.
 * A user's warm request is placed from the isolate's memory, so its reads and writes add nothing and
 * are not listed; only the supervisor's operations on the directory and the token endpoints are.
 * Each entry says which part of docs/sharding.md it pays for.
 */
export const SHARDED_ROUND_TRIPS: Record<string, (layout: Layout) => number> = {
  // The users of the accounts other shards hold are counted there.
  "GET /api/accounts": (l) => l.others,
  // The directory is asked for the name, then the account's shard is read.
  "GET /api/accounts/name/{name}": (l) => l.several,
  // The directory's count of accounts per shard (placement); the directory's row and the shard's copy are two batches when apart.
  "POST /api/accounts": (l) => l.several + l.apart,
  "PUT /api/accounts/{id}": (l) => l.apart,
  "PATCH /api/accounts/{id}": (l) => l.apart,
  // The same, and the account's rows of the copies of the connection types' lists on every other shard.
  "DELETE /api/accounts/{id}": (l) => l.apart + l.others,
  // A connection type's state written to its copy on every other shard.
  "POST /api/connection/types": (l) => l.others,
  "PUT /api/connection/types/{id}": (l) => l.others,
  "PATCH /api/connection/types/{id}": (l) => l.others,
  "PUT /api/connection/types/{id}/accounts": (l) => l.others,
  // The copies deleted before the directory's row, and once more after it (sweepTypeCopies).
  "DELETE /api/connection/types/{id}": (l) => 2 * l.others,
  // A client's stub written, or its tokens and stub deleted, on every other shard.
  "POST /api/trusted-access/clients": (l) => l.others,
  "DELETE /api/trusted-access/clients/{id}": (l) => l.others,
  // The supervisor names the token by id: every shard is asked which account holds it.
  "DELETE /api/trusted-access/tokens/{tokenId}": (l) => l.asked,
  // The directory asked whose the user's name is; it confirms the client once the token is written apart from it.
  "POST /api/trusted-access/pull/tokens": (l) => l.several + l.apart,
  // The same (one directory read of the account the push names and of the name's), and the new user's name claimed in the directory.
  "POST /api/trusted-access/push/tokens": (l) => l.several + 2 * l.apart,
  // A user's name claimed in the directory before the shard's write, or released after it (db/shards/user-names.ts); the registry's PUT renames.
  "POST /api/users": (l) => l.apart,
  "PUT /api/users/{id}": (l) => 2 * l.apart,
  "DELETE /api/users/{id}": (l) => l.apart,
};
