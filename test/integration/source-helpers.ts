import { expect } from "vitest";
import { as, call, snapshotRows, type CallResult, type TestUser } from "./helpers";

/**
 * Helpers for the source and source-field tests: creating sources through the API and
 * building field bodies of each origin.
 */
export interface SourceBody {
  name: string;
  description?: string | null;
  connectionId?: string | null;
  features?: string[];
  enabled?: boolean;
  fields?: unknown[];
}

export interface SourceJson {
  id: string;
  name: string;
  description: string | null;
  accountId: string;
  connectionId: string | null;
  features: string[];
  enabled: boolean;
  ownerUserId: string | null;
  createdByUserID: string;
  createdDate: string;
  lastModifiedByUserID: string;
  lastModifiedDate: string;
}

let sourceCounter = 0;
export const sourceName = (prefix = "src") => `${prefix}-${(sourceCounter++).toString().padStart(3, "0")}-${Date.now().toString(36)}`;

/** Creates a source as `user` (POST /api/sources) and answers its body; fails the test on anything but 201. */
export async function createSource(user: TestUser, body: Partial<SourceBody> = {}): Promise<SourceJson> {
  const res = await call("POST", "/api/sources", { as: as(user), body: { name: sourceName(), ...body } });
  if (res.status !== 201) throw new Error(`source: ${res.status} ${res.text}`);
  return res.json as SourceJson;
}

export const sourcePath = (sourceId: string) => `/api/sources/${encodeURIComponent(sourceId)}`;
export const fieldsPath = (sourceId: string) => `${sourcePath(sourceId)}/fields`;
export const fieldPath = (sourceId: string, name: string) => `${fieldsPath(sourceId)}/${encodeURIComponent(name)}`;

/** A NATIVE field body. */
export function nativeField(originalName: string, extra: Record<string, unknown> = {}, nativeOrigin: Record<string, unknown> = {}) {
  return { ...extra, origin: { type: "NATIVE", nativeOrigin: { originalName, ...nativeOrigin } } };
}

/** A DERIVED field body. */
export function derivedField(name: string | undefined, expression: string, extra: Record<string, unknown> = {}, derivedOrigin: Record<string, unknown> = {}) {
  return { ...(name === undefined ? {} : { name }), ...extra, origin: { type: "DERIVED", derivedOrigin: { expression, ...derivedOrigin } } };
}

/** A HIERARCHY field body. */
export function hierarchyField(name: string | undefined, childField: string, parentField: string, labelField?: string, extra: Record<string, unknown> = {}) {
  return {
    ...(name === undefined ? {} : { name }),
    ...extra,
    origin: { type: "HIERARCHY", hierarchyOrigin: { childParent: { childField, parentField }, ...(labelField === undefined ? {} : { labelField }) } },
  };
}

/** The native fields most tests start from, with the data types their original types imply. */
export const STANDARD_FIELDS = [
  nativeField("carrier", { name: "carrier" }, { originalType: "VARCHAR(10)" }), // ATTRIBUTE
  nativeField("price", { name: "price" }, { originalType: "DECIMAL(10,2)" }), // NUMBER
  nativeField("qty", { name: "qty" }, { originalType: "INT" }), // INTEGER
  nativeField("origin_city", { name: "origin_city" }, { originalType: "VARCHAR" }), // ATTRIBUTE
  nativeField("dest_city", { name: "dest_city" }, { originalType: "VARCHAR" }), // ATTRIBUTE
  nativeField("order_date", { name: "order_date" }, { originalType: "TIMESTAMP" }), // TIME
];

export const STANDARD_FIELD_NAMES = ["carrier", "price", "qty", "origin_city", "dest_city", "order_date"];

/** Rows of the source's own tables that belong to `sourceId`, from a dbSnapshot (every database). */
export function rowsOfSource(snapshot: Record<string, unknown[]>, sourceId: string) {
  const counts: Record<string, number> = {};
  for (const table of ["sources", "source_items", "source_permissions", "source_references"]) {
    const column = table === "sources" ? "id" : "source_id";
    counts[table] = snapshotRows(snapshot, table).filter((row) => row[column] === sourceId).length;
  }
  return counts;
}

/** The names of the problems of an error body, sorted and without duplicates. */
export const problemNames = (res: CallResult): string[] =>
  [...new Set<string>((res.json?.problems ?? []).map((p: { name: string }) => p.name))].sort();

/** Walks a page chain forward with `maxResults`, answering every page. */
export async function pagesForward(path: string, user: TestUser | undefined, maxResults: number) {
  const pages: CallResult[] = [];
  let token: string | null = null;
  do {
    const query = `maxResults=${maxResults}${token ? `&pageToken=${encodeURIComponent(token)}` : ""}`;
    const res = await call("GET", `${path}?${query}`, user ? { as: as(user) } : {});
    expect(res.status, res.text).toBe(200);
    pages.push(res);
    token = res.json.pageInfo.nextPageToken;
  } while (token && pages.length < 100);
  return pages;
}
