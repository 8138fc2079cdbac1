import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { createApp } from "../../src/app";
import { buildRequest, call, unique, type CallOptions, type CallResult, type TestUser, as } from "./helpers";

/**
 * Helpers for the custom-metric tests: a source with a known set of native fields, the metric
 * paths, and a round-trip counting call that does not depend on the test bindings' setting.
 */
export const NATIVE_FIELDS = [
  { name: "price", originalType: "DECIMAL" }, // NUMBER
  { name: "qty", originalType: "INT" }, // INTEGER
  { name: "carrier", originalType: "VARCHAR" }, // ATTRIBUTE
  { name: "order_date", originalType: "TIMESTAMP" }, // TIME
  { name: "note", originalType: "TEXT" }, // TEXT
] as const;

export function nativeField(name: string, originalType: string) {
  return { name, origin: { type: "NATIVE", nativeOrigin: { originalName: name, originalType } } };
}

/** Creates a source (as `owner`, who needs ROLE_CREATE_SOURCES or ROLE_ADMIN) with the standard fields. */
export async function createMetricSource(owner: TestUser, name = unique("src")): Promise<{ id: string; name: string; accountId: string }> {
  const res = await call("POST", "/api/sources", {
    as: as(owner),
    body: { name, fields: NATIVE_FIELDS.map((f) => nativeField(f.name, f.originalType)) },
  });
  if (res.status !== 201) throw new Error(`source: ${res.status} ${res.text}`);
  return res.json;
}

export const metricsPath = (sourceId: string) => `/api/sources/${encodeURIComponent(sourceId)}/custom-metrics`;
export const metricPath = (sourceId: string, name: string) => `${metricsPath(sourceId)}/${encodeURIComponent(name)}`;

export function putMetric(user: TestUser, sourceId: string, name: string, body: unknown, headers?: Record<string, string>) {
  return call("PUT", metricPath(sourceId, name), { as: as(user), body, headers });
}

/** Every custom metric of the source, following the pages. */
export async function allMetrics(user: TestUser, sourceId: string): Promise<any[]> {
  const out: any[] = [];
  let token: string | null = null;
  for (let i = 0; i < 100; i++) {
    const query: string = token ? `?maxResults=1000&pageToken=${encodeURIComponent(token)}` : "?maxResults=1000";
    const res = await call("GET", `${metricsPath(sourceId)}${query}`, { as: as(user) });
    expect(res.status, res.text).toBe(200);
    out.push(...res.json.content);
    token = res.json.pageInfo.nextPageToken;
    if (!token) return out;
  }
  throw new Error("too many pages");
}

export async function grant(owner: TestUser, sourceId: string, grants: { user: TestUser; permission: "READ" | "WRITE" }[]) {
  const res = await call("PUT", `/api/sources/${sourceId}/permissions`, {
    as: as(owner),
    body: { content: grants.map((g) => ({ principalType: "USER", principalId: g.user.id, permission: g.permission })) },
  });
  if (res.status !== 200) throw new Error(`permissions: ${res.status} ${res.text}`);
}

let countingApp: Awaited<ReturnType<typeof createApp>> | undefined;

/** A call whose answer carries X-D1-Round-Trips, whatever the test bindings say. */
export async function callCounting(method: string, path: string, options: CallOptions = {}): Promise<CallResult & { roundTrips: number }> {
  countingApp ??= await createApp();
  const bindings = { ...env, EXPOSE_D1_ROUND_TRIPS: "true" };
  const ctx = createExecutionContext();
  const response = await countingApp.fetch(buildRequest(method, path, options), bindings, ctx);
  await waitOnExecutionContext(ctx);
  const text = await response.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const header = response.headers.get("X-D1-Round-Trips");
  if (header === null) throw new Error("X-D1-Round-Trips header missing");
  return { status: response.status, headers: response.headers, json, text, roundTrips: Number(header) };
}

/** The one Problem of a 400 that names `member`; fails when there is none. */
export function problemOf(res: CallResult, member: string) {
  const problem = (res.json?.problems ?? []).find((p: { name: string }) => p.name === member);
  expect(problem, `no problem named ${member} in ${res.text}`).toBeDefined();
  return problem as { name: string; message: string; level: string; dependencies?: any };
}
