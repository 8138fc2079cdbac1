import { loadContract, type Contract } from "./contract";
import { findOperation, type Operation, type ResponseDoc } from "./document";
import { preview } from "./schemas";

/**
 * Checks one response against the operation the request reached (Schemathesis's response
 * checks, built into every integration call):
 *  - never a 5xx;
 *  - the status is documented for the operation (method + path template);
 *  - the Content-Type is one the document gives that status, and a body-less status has no body;
 *  - the body is valid against the documented schema (closed: no undocumented members);
 *  - every header the document marks required is present (X-Request-Id, Location on 201,
 *    WWW-Authenticate on 401, X-API-Stability, Deprecation, ETag on 304, ...);
 *  - an error body's errorCode is one `x-error-codes` lists for that status, and its `status`
 *    and `requestId` members agree with the response;
 *  - a JSON answer is in a media type the request allows: one its Accept accepts, or without
 *    Accept its own Content-Type when the response documents that type.
 * A request that reaches no documented operation may only get the pipeline's generic answers
 * (as OAuth error bodies under /api/trusted-access/).
 */
export interface Exchange {
  method: string;
  url: string;
  status: number;
  headers: Headers;
  text: string;
  /** The request's headers: its Accept and Content-Type decide the answer's media type. */
  requestHeaders?: Headers;
}

export class ConformanceError extends Error {
  override name = "ConformanceError";
}

/** What the pipeline answers before (or instead of) any route, with the errorCode each carries. */
const GENERIC_ANSWERS: Record<number, { errorCode?: string; header?: string }> = {
  401: { header: "WWW-Authenticate" },
  404: { errorCode: "ROUTE_NOT_FOUND" },
  405: { errorCode: "METHOD_NOT_ALLOWED", header: "Allow" },
  406: { errorCode: "NOT_ACCEPTABLE" },
  413: { errorCode: "PAYLOAD_TOO_LARGE" },
  415: { errorCode: "UNSUPPORTED_MEDIA_TYPE" },
  // Authentication runs before routing under /api/, so its throttle can answer any path.
  429: { errorCode: "TOO_MANY_LOGIN_ATTEMPTS", header: "Retry-After" },
};

/**
 * Under /api/trusted-access/ every answer, the pipeline's generic ones included, is an OAuth error
 * body {error, error_description} (docs/trusted-access.md): the `error` values each status may carry.
 */
const TRUSTED_ACCESS_PREFIX = "/api/trusted-access/";
const GENERIC_OAUTH_ERRORS: Record<number, string[]> = {
  401: ["invalid_client", "invalid_token"],
  404: ["invalid_request"],
  405: ["invalid_request"],
  406: ["invalid_request"],
  413: ["invalid_request"],
  415: ["invalid_request"],
  429: ["temporarily_unavailable"],
};

const JSON_MEDIA_TYPE = /^application\/(?:json|[\w.+-]+\+json)$/;

const essence = (contentType: string | null) => (contentType ?? "").split(";")[0]!.trim().toLowerCase();

/** Checks against the document the Worker serves at `contextPath` (its CONTEXT_PATH; "" for the test env's own). */
export async function assertConformant(exchange: Exchange, contextPath = ""): Promise<void> {
  const contract = await loadContract(contextPath);
  const { operation, violations } = responseViolations(contract, exchange);
  if (violations.length === 0) return;
  const url = new URL(exchange.url);
  throw new ConformanceError(
    [
      `${exchange.method} ${url.pathname}${url.search} answered ${exchange.status}, which breaks the contract of ${operation}:`,
      ...violations.map((v) => `  - ${v}`),
      `  response body: ${exchange.text.length > 600 ? `${exchange.text.slice(0, 600)}…` : exchange.text || "(empty)"}`,
    ].join("\n"),
  );
}

export function responseViolations(contract: Contract, exchange: Exchange): { operation: string; violations: string[] } {
  const method = exchange.method.toUpperCase();
  const pathname = new URL(exchange.url).pathname;
  const violations: string[] = [];
  if (exchange.status >= 500) violations.push(`server error ${exchange.status}`);
  if (!exchange.headers.get("X-Request-Id")) violations.push("header X-Request-Id is missing");

  const head = method === "HEAD";
  const operation = findOperation(contract.operations, head ? "GET" : method, pathname);
  if (!operation) {
    checkGenericAnswer(contract, exchange, method, violations);
    return { operation: `no documented operation (${method} ${pathname})`, violations };
  }

  const documented = operation.responses[String(exchange.status)];
  if (!documented) {
    const statuses = Object.keys(operation.responses).join(", ");
    violations.push(`status ${exchange.status} is not documented for ${operation.key} (documented: ${statuses})`);
    return { operation: operation.key, violations };
  }
  checkHeaders(documented, exchange, violations);
  checkBody(contract, operation, documented, exchange, head, violations);
  return { operation: `${head ? "HEAD (as GET) " : ""}${operation.key}`, violations };
}

function checkHeaders(documented: ResponseDoc, exchange: Exchange, violations: string[]) {
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    if (header.required && exchange.headers.get(name) === null) violations.push(`documented required header ${name} is missing`);
  }
}

function checkBody(contract: Contract, operation: Operation, documented: ResponseDoc, exchange: Exchange, head: boolean, violations: string[]) {
  const content = documented.content ?? {};
  const mediaTypes = Object.keys(content);
  if (mediaTypes.length === 0) {
    if (exchange.text !== "") violations.push(`status ${exchange.status} documents no body, but one was sent`);
    return;
  }
  const type = essence(exchange.headers.get("Content-Type"));
  const mediaType = mediaTypes.find((m) => m.toLowerCase() === type);
  if (!mediaType) {
    violations.push(`Content-Type "${exchange.headers.get("Content-Type")}" is not documented for ${exchange.status} (documented: ${mediaTypes.join(", ")})`);
    return;
  }
  if (type === NDJSON) {
    // Newline-delimited JSON (the audit trail's export): each line one JSON object; an empty stream is no line.
    if (!head) checkNdjson(exchange.text, violations);
    return;
  }
  if (!JSON_MEDIA_TYPE.test(type)) {
    if (!head && exchange.text === "") violations.push(`status ${exchange.status} documents a ${type} body, but none was sent`);
    return;
  }
  checkNegotiated(contract, exchange, type, mediaTypes, violations);
  if (head) return;
  let body: unknown;
  try {
    body = JSON.parse(exchange.text);
  } catch {
    violations.push(`the body is not the JSON its Content-Type ${type} says`);
    return;
  }
  const schema = content[mediaType]!.schema ?? {};
  const compiled = contract.schemas.compile(schema, "response", `${operation.key} ${exchange.status} ${mediaType}`);
  for (const error of contract.schemas.errors(compiled, body)) violations.push(`body does not match ${compiled.origin}: ${error}`);
  checkErrorBody(body, exchange, documented["x-error-codes"], violations);
  checkOAuthError(body, documented["x-oauth-errors"], exchange.status, violations);
}

const NDJSON = "application/x-ndjson";

function checkNdjson(text: string, violations: string[]) {
  if (text !== "" && !text.endsWith("\n")) violations.push("the NDJSON body does not end with a newline");
  text.split("\n").slice(0, -1).forEach((line, i) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return violations.push(`NDJSON line ${i + 1} is not JSON: ${preview(line)}`);
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) violations.push(`NDJSON line ${i + 1} is not a JSON object`);
  });
}

/** An OAuth error body's `error` is one the response documents for its errorCodes. */
function checkOAuthError(body: unknown, oauth: Record<string, string> | undefined, status: number, violations: string[]) {
  if (!oauth || body === null || typeof body !== "object") return;
  const error = (body as { error?: unknown }).error;
  const allowed = [...new Set(Object.values(oauth))];
  if (!allowed.includes(error as string)) violations.push(`OAuth error ${JSON.stringify(error)} is not one x-oauth-errors gives ${status} (${allowed.join(", ")})`);
}

/**
 * The errorCodes an error answer stands for: its own `errorCode`, or for an OAuth error body the
 * errorCodes that `x-oauth-errors` of its status maps to its `error` (several may share one).
 */
export function errorCodesOfAnswer(operation: Operation, status: number, body: any): string[] {
  if (typeof body?.errorCode === "string") return [body.errorCode];
  const oauth = operation.responses[String(status)]?.["x-oauth-errors"];
  if (!oauth || typeof body?.error !== "string") return [];
  return Object.keys(oauth).filter((code) => oauth[code] === body.error);
}

/** An error body agrees with its response: errorCode listed for the status; status, path and requestId echoed. */
function checkErrorBody(body: unknown, exchange: Exchange, codes: string[] | undefined, violations: string[]) {
  if (exchange.status < 400 || body === null || typeof body !== "object" || Array.isArray(body)) return;
  const error = body as Record<string, unknown>;
  const pathname = new URL(exchange.url).pathname;
  if (typeof error.path === "string" && error.path !== pathname) violations.push(`body path ${preview(error.path)} is not the request's path ${pathname}`);
  if (typeof error.errorCode === "string" && codes && !codes.includes(error.errorCode)) {
    violations.push(`errorCode ${error.errorCode} is not in x-error-codes of ${exchange.status} (${codes.join(", ")})`);
  }
  if (typeof error.status === "string" && error.status !== String(exchange.status)) violations.push(`body status "${error.status}" is not the response's ${exchange.status}`);
  if (typeof error.status === "number" && error.status !== exchange.status) violations.push(`body status ${error.status} is not the response's ${exchange.status}`);
  const requestId = exchange.headers.get("X-Request-Id");
  if (typeof error.requestId === "string" && requestId && error.requestId !== requestId) {
    violations.push(`body requestId ${preview(error.requestId)} differs from X-Request-Id ${requestId}`);
  }
}

/** Unknown path, a method no route takes, OPTIONS: only the pipeline's own answers. */
function checkGenericAnswer(contract: Contract, exchange: Exchange, method: string, violations: string[]) {
  if (method === "OPTIONS" && exchange.status === 204) {
    if (exchange.text !== "") violations.push("a CORS preflight 204 must have no body");
    return;
  }
  const expected = GENERIC_ANSWERS[exchange.status];
  if (!expected) {
    violations.push(`status ${exchange.status} is not one of the pipeline's generic answers (${Object.keys(GENERIC_ANSWERS).join(", ")}${method === "OPTIONS" ? ", 204 preflight" : ""})`);
    return;
  }
  if (expected.header && exchange.headers.get(expected.header) === null) violations.push(`header ${expected.header} is missing`);
  if (method === "HEAD") return;
  const type = essence(exchange.headers.get("Content-Type"));
  if (!JSON_MEDIA_TYPE.test(type)) {
    violations.push(`Content-Type "${exchange.headers.get("Content-Type")}" is not JSON`);
    return;
  }
  checkNegotiated(contract, exchange, type, undefined, violations);
  let body: any;
  try {
    body = JSON.parse(exchange.text);
  } catch {
    violations.push("the body is not JSON");
    return;
  }
  if (new URL(exchange.url).pathname.startsWith(`${contract.contextPath}${TRUSTED_ACCESS_PREFIX}`)) {
    const schema = contract.schemas.component("TrustedAccessError", "response");
    for (const error of contract.schemas.errors(schema, body)) violations.push(`body does not match ${schema.origin}: ${error}`);
    const allowed = GENERIC_OAUTH_ERRORS[exchange.status] ?? [];
    if (!allowed.includes(body?.error)) violations.push(`OAuth error ${JSON.stringify(body?.error)} where the pipeline answers ${allowed.join(" or ")}`);
    return;
  }
  const schema = contract.schemas.component(exchange.status === 401 ? "ServletErrorMessage" : "ErrorMessage", "response");
  for (const error of contract.schemas.errors(schema, body)) violations.push(`body does not match ${schema.origin}: ${error}`);
  if (expected.errorCode && body?.errorCode !== expected.errorCode) violations.push(`errorCode ${body?.errorCode} where the pipeline answers ${expected.errorCode}`);
  checkErrorBody(body, exchange, undefined, violations);
}

/**
 * The answer's JSON media type is one the request allows: with an Accept header, a type whose most
 * specific matching range has q > 0; without one, the request's own Content-Type when the response
 * documents it. A 406 is exempt: it is the answer to an Accept that allows none. Media types are
 * negotiated under /api only (the reference page and unknown paths outside it answer any Accept).
 */
function checkNegotiated(contract: Contract, exchange: Exchange, type: string, documented: readonly string[] | undefined, violations: string[]) {
  if (exchange.status === 406 || !exchange.requestHeaders) return;
  if (!new URL(exchange.url).pathname.startsWith(`${contract.contextPath}/api/`)) return;
  const accept = exchange.requestHeaders.get("Accept")?.trim();
  if (accept) {
    if (!acceptAllows(accept, type)) violations.push(`Content-Type ${type} is not one the request's Accept "${accept}" allows`);
    return;
  }
  const own = essence(exchange.requestHeaders.get("Content-Type"));
  if (documented?.includes(own) && type !== own) violations.push(`without Accept, the answer should be in the request's own Content-Type ${own}, not ${type}`);
}

function acceptAllows(accept: string, type: string): boolean {
  const ranges = accept.split(",").map((part) => {
    const [range = "", ...params] = part.split(";").map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith("q="));
    return { range, q: q === undefined ? 1 : Number(q.slice(2)) };
  });
  for (const pattern of [type, `${type.split("/")[0]}/*`, "*/*"]) {
    const match = ranges.find((r) => r.range === pattern);
    if (match) return match.q > 0;
  }
  return false;
}
