import { basic, call, VENDOR_JSON, type CallOptions, type CallResult, type Credentials } from "../helpers";

/**
 * A request the fuzzers generate, as a small plain value: fast-check prints it as the
 * counterexample and shrinks it, so bulky parts (1 MB strings, 10,000 levels of nesting) are
 * described here and only built by `send`.
 */
export type BodyPlan =
  /** Sent as JSON.stringify(json). */
  | { json: unknown }
  /** Sent as these exact characters (malformed JSON). */
  | { text: string }
  /** Sent as these exact bytes (invalid UTF-8). */
  | { bytes: number[] }
  /** `base` with the member at `at` replaced by something bulky, built at send time. */
  | { base: unknown; at: (string | number)[]; bulk: Bulk };

export type Bulk = { kind: "string"; length: number } | { kind: "nesting"; depth: number };

export interface RequestPlan {
  /** What this request is (e.g. "valid: schema body", "invalid: wrong type at body.name"). */
  label: string;
  /** For invalid requests: what is broken (body, media type, path, query, authentication). */
  category?: string;
  method: string;
  /** Path with its parameters already encoded exactly as they go on the wire. */
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: BodyPlan;
  /** Who calls: credentials, or raw Authorization / address headers for the broken auth states. */
  as: Credentials;
  /** For invalid requests that must be a 400 naming these members (unknown members): their names, as Problems name them. */
  namesProblems?: string[];
}

export function bodyText(body: BodyPlan): string | Uint8Array {
  if ("json" in body) return JSON.stringify(body.json);
  if ("text" in body) return body.text;
  if ("bytes" in body) return new Uint8Array(body.bytes);
  const placeholder = "\u0000BULK\u0000";
  const copy = structuredClone(body.base) as any;
  if (body.at.length === 0) return bulkText(body.bulk);
  let node = copy;
  for (const key of body.at.slice(0, -1)) node = node[key];
  node[body.at[body.at.length - 1]!] = placeholder;
  return JSON.stringify(copy).replace(JSON.stringify(placeholder), bulkText(body.bulk));
}

function bulkText(bulk: Bulk): string {
  if (bulk.kind === "string") return JSON.stringify("x".repeat(bulk.length));
  // Built as text: JSON.stringify of 10,000 nested arrays would itself run out of stack.
  return "[".repeat(bulk.depth) + "]".repeat(bulk.depth);
}

export function toCallOptions(plan: RequestPlan): CallOptions {
  const headers: Record<string, string> = { ...(plan.headers ?? {}) };
  let rawBody: BodyInit | undefined;
  if (plan.body !== undefined) {
    rawBody = bodyText(plan.body);
    // An explicit "" means: send the body with no Content-Type at all.
    if (!("Content-Type" in headers)) headers["Content-Type"] = VENDOR_JSON;
    if (headers["Content-Type"] === "") delete headers["Content-Type"];
  }
  return { as: plan.as, headers, rawBody };
}

export function planUrl(plan: RequestPlan): string {
  const query = Object.entries(plan.query ?? {})
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join("&");
  return query ? `${plan.path}?${query}` : plan.path;
}

/** Sends the plan through `call`, so the response is checked against the document. */
export function send(plan: RequestPlan): Promise<CallResult> {
  return call(plan.method, planUrl(plan), toCallOptions(plan));
}

/** Broken authentication states, as raw Authorization headers (each from its own client address, see below). */
export const BROKEN_AUTHORIZATION: Record<string, (username: string) => string> = {
  "malformed Basic (not base64)": () => "Basic !!!not-base64!!!",
  "malformed Basic (no colon)": () => `Basic ${btoa("nocolon")}`,
  "empty Basic": () => "Basic ",
  "unknown scheme": () => "Digest username=x",
  "wrong password": (username) => basic(username, "wrong password entirely"),
  "bearer garbage": () => "Bearer garbage.token.value",
  "empty bearer": () => "Bearer ",
};

/**
 * Failed logins are throttled per client address; a broken-auth request from a throwaway
 * address keeps the suite's own callers (address "unknown") from being locked out.
 */
export function throwawayAddress(n: number): string {
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}
