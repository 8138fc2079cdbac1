/**
 * GETs a URL and reads its answer as a JSON array of records, within the service's limits:
 * every host (the first and each redirect's) passes the host policy before it is contacted,
 * the response headers must arrive within connectMs and the body within operationMs, and
 * no more than maxResponseBytes are read.
 */
import { checkHost, type HostVerdict } from "../../domain/connectors/host-policy";
import type { ConnectorEnvironment } from "../connector";
import { ConnectorError } from "../connector-error";
import { DeadlineExceeded, fetchWithin, formatDuration } from "../deadline";

const MAX_REDIRECTS = 5;

export type JsonRecord = Record<string, unknown>;

export async function fetchRecords(url: URL, headers: Headers, environment: ConnectorEnvironment): Promise<JsonRecord[]> {
  const response = await fetchFollowingRedirects(url, headers, environment);
  const text = await readCappedText(response, environment);
  return parseRecords(text, response.headers.get("content-type"));
}

async function fetchFollowingRedirects(start: URL, headers: Headers, environment: ConnectorEnvironment): Promise<Response> {
  let url = start;
  let sendHeaders = headers;
  for (let hop = 0; ; hop++) {
    assertAllowed(url, environment);
    const response = await fetchWithTimeout(url, sendHeaders, environment.timeouts.connectMs);
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || location === null) return checkStatus(response, url);
    await response.body?.cancel();
    if (hop === MAX_REDIRECTS) throw new ConnectorError("INVALID_RESPONSE", `${url.origin} redirected more than ${MAX_REDIRECTS} times.`);
    const next = new URL(location, url);
    if (next.protocol !== "http:" && next.protocol !== "https:") {
      throw new ConnectorError("INVALID_RESPONSE", `${url.origin} redirected to a ${next.protocol} address.`);
    }
    // Like browsers: credentials go to the origin they were given for, not to where it redirects.
    if (next.origin !== url.origin) sendHeaders = new Headers({ accept: "application/json" });
    url = next;
  }
}

function assertAllowed(url: URL, environment: ConnectorEnvironment): void {
  const verdict = checkUrlHost(url, environment);
  if (!verdict.allowed) throw new ConnectorError("HOST_NOT_ALLOWED", verdict.reason);
}

/** The host policy's verdict on a URL's host and port. */
export function checkUrlHost(url: URL, environment: ConnectorEnvironment): HostVerdict {
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  return checkHost(environment.hostPolicy, url.hostname, port);
}

// Bounds the wait for the response headers only; the body has its own time-out.
async function fetchWithTimeout(url: URL, headers: Headers, timeoutMs: number): Promise<Response> {
  try {
    return await fetchWithin(url, { headers, redirect: "manual" }, timeoutMs, (response) => response);
  } catch (err) {
    if (err instanceof DeadlineExceeded) throw new ConnectorError("TIMEOUT", `${url.origin} did not answer within ${formatDuration(timeoutMs)}.`);
    // The message names the origin only: a path or query string may carry a token.
    throw new ConnectorError("UNREACHABLE", `Could not reach ${url.origin} (wrong host or port, server down, or blocked).`);
  }
}

function checkStatus(response: Response, url: URL): Response {
  if (response.ok) return response;
  void response.body?.cancel();
  const status = `HTTP ${response.status}`;
  if (response.status === 401 || response.status === 403) {
    throw new ConnectorError("AUTH_FAILED", `${url.origin} refused the request (${status}): check the Authorization and secret headers.`);
  }
  if (response.status === 404) throw new ConnectorError("NOT_FOUND", `${url.origin} has nothing at this path (${status}).`);
  throw new ConnectorError("UPSTREAM_ERROR", `${url.origin} answered with an error (${status}).`);
}

async function readCappedText(response: Response, environment: ConnectorEnvironment): Promise<string> {
  const { maxResponseBytes } = environment;
  const { operationMs } = environment.timeouts;
  const tooLarge = () => new ConnectorError("RESPONSE_TOO_LARGE", `The answer is larger than ${maxResponseBytes} bytes.`);
  if (Number(response.headers.get("content-length")) > maxResponseBytes) {
    void response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return "";

  const reader = response.body.getReader();
  const timer = setTimeout(() => void reader.cancel(new Error("timeout")).catch(() => {}), operationMs);
  const chunks: Uint8Array[] = [];
  let total = 0;
  let timedOut = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxResponseBytes) {
        void reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof ConnectorError) throw error;
    timedOut = true;
  } finally {
    clearTimeout(timer);
  }
  if (timedOut) throw new ConnectorError("TIMEOUT", `The answer did not arrive completely within ${formatDuration(operationMs)}.`);

  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new ConnectorError("INVALID_RESPONSE", "The answer is not UTF-8 text.");
  }
}

function parseRecords(text: string, contentType: string | null): JsonRecord[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const kind = contentType ? ` (content type ${contentType.split(";")[0]})` : "";
    throw new ConnectorError("INVALID_RESPONSE", `The answer is not JSON${kind}.`);
  }
  if (!Array.isArray(parsed)) {
    throw new ConnectorError("INVALID_RESPONSE", `The answer is JSON but not an array of records: it is ${describeJson(parsed)}.`);
  }
  const index = parsed.findIndex((item) => typeof item !== "object" || item === null || Array.isArray(item));
  if (index >= 0) {
    throw new ConnectorError("INVALID_RESPONSE", `Item ${index + 1} of the array is ${describeJson(parsed[index])}, not an object.`);
  }
  return parsed as JsonRecord[];
}

function describeJson(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
