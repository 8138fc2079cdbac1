import { expect } from "vitest";
import { as, call, databases, type CallResult, type TestUser } from "./helpers";
import { createSource, fieldsPath, nativeField, type SourceJson } from "./source-helpers";

/** Helpers for the materialized-view tests: sources whose fields name their table, view bodies, and the headers of deprecated answers. */
export const VIEWS = "/api/materialized-views";
export const viewPath = (id: string) => `${VIEWS}/${encodeURIComponent(id)}`;

/** A native field of table `dataEntityId` (`schema.table`), as the data-entity describe makes them. */
export const columnOf = (dataEntityId: string) => (name: string, originalType: string) => nativeField(name, { name }, { originalType, dataEntityId });

/** The orders table of the sample PostgreSQL: customer_id (INTEGER), amount (NUMBER), ordered_on (TIME), and a text column. */
export const ORDER_FIELDS = [
  columnOf("sales.orders")("customer_id", "integer"),
  columnOf("sales.orders")("amount", "numeric(10,2)"),
  columnOf("sales.orders")("ordered_on", "date"),
  columnOf("sales.orders")("status", "text"),
];

/** A source of orders, made by `owner` (who then holds WRITE on it); `fields` (derived, hierarchies) are added after ORDER_FIELDS. */
export async function createOrdersSource(owner: TestUser, extra: { fields?: unknown[]; connectionId?: string } = {}): Promise<SourceJson> {
  const source = await createSource(owner, { fields: ORDER_FIELDS, ...(extra.connectionId && { connectionId: extra.connectionId }) });
  for (const field of extra.fields ?? []) {
    const res = await call("POST", fieldsPath(source.id), { as: as(owner), body: field });
    expect(res.status, res.text).toBe(201);
  }
  return source;
}

let views = 0;
export const viewName = (prefix = "View") => `${prefix} ${(views++).toString().padStart(3, "0")} ${Date.now().toString(36)}`;

export type Definition = {
  type?: string;
  sourceId: string;
  filters?: unknown[];
  aggregations?: unknown[];
  metrics?: unknown[];
};

/** A view body: revenue per customer unless the definition says otherwise. */
export function viewBody(sourceId: string, definition: Partial<Definition> = {}, extra: Record<string, unknown> = {}) {
  return {
    name: viewName(),
    definition: {
      type: "AGG",
      sourceId,
      aggregations: [{ type: "TERMS", field: { name: "customer_id" } }],
      metrics: [{ type: "SUM", field: { name: "amount" } }],
      ...definition,
    },
    ...extra,
  };
}

export const postView = (user: TestUser, body: unknown) => call("POST", VIEWS, { as: as(user), body });

/** Creates a view (200) and answers it. */
export async function createView(user: TestUser, body: unknown): Promise<any> {
  const res = await postView(user, body);
  expect(res.status, res.text).toBe(200);
  return res.json;
}

/** The Sunset date every deprecated operation answers (src/middleware/stability). */
export const SUNSET = "Fri, 31 Dec 2027 23:59:59 GMT";

/** A deprecated operation's answer, success or error, carries both marks. */
export function expectDeprecated(res: CallResult) {
  expect({ deprecation: res.headers.get("Deprecation"), sunset: res.headers.get("Sunset") }, `${res.status} ${res.text.slice(0, 200)}`).toEqual({
    deprecation: "true",
    sunset: SUNSET,
  });
}

/** Views whose source or target connection no longer exists in their account, on any database (must never be any). */
export async function danglingViews(): Promise<unknown[]> {
  const dangling: unknown[] = [];
  for (const [, database] of databases()) {
    const rows = await database
      .prepare(
        `SELECT mv.id FROM materialized_views mv
         WHERE NOT EXISTS (SELECT 1 FROM sources s WHERE s.account_id = mv.account_id AND s.id = mv.source_id)
            OR (mv.target_connection_id IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM connections c WHERE c.account_id = mv.account_id AND c.id = mv.target_connection_id))`,
      )
      .all();
    dangling.push(...rows.results);
  }
  return dangling;
}
