import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../../lib/types";
import { toHex } from "../../domain/bytes";

/**
 * Conditional GET: every successful GET carries an ETag (an object's revision tag, or for a list
 * page and other answers without one, a digest of the bytes and media type sent), and a GET whose
 * If-None-Match names it is answered 304 with no body. If-None-Match compares weakly (RFC 9110).
 */
const KEPT_ON_304 = ["etag", "cache-control", "vary", "x-request-id", "x-api-stability", "deprecation", "sunset", "link"];

export const conditionalGet: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method !== "GET" && c.req.method !== "HEAD") return next();
  const answered = keepAnswerText(c);
  await next();
  if (c.res.status !== 200) return;
  let etag = c.res.headers.get("ETag");
  if (!etag) {
    const type = c.res.headers.get("Content-Type") ?? "";
    if (answered.response === c.res && answered.text !== undefined) {
      // An answer made from a string (c.json, or c.body of a text): its text is known, so the body is not read back.
      etag = `"${await textDigest(answered.text, type)}"`;
    } else {
      // Read once and answered from the bytes read: cheaper than clone(), which tees the body stream.
      const answer = c.res;
      const bytes = await answer.arrayBuffer();
      etag = `"${await representationDigest(bytes, type)}"`;
      c.res = undefined;
      c.res = new Response(bytes, answer);
    }
    c.res.headers.set("ETag", etag);
  }
  const ifNoneMatch = c.req.header("If-None-Match");
  if (!ifNoneMatch || !ifNoneMatchNames(ifNoneMatch, etag)) return;
  const headers = new Headers();
  for (const name of KEPT_ON_304) {
    const value = c.res.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  await c.res.body?.cancel();
  c.res = new Response(null, { status: 304, headers });
};

/**
 * This request's `c.json`, and `c.body` given a string (an export written as canonical JSON), made
 * to remember the text they send with the Response they made: what Hono's own do (the same call of
 * `newResponse`), so the digest of the answer needs no second read of its body and no copy of the
 * Response.
 */
function keepAnswerText(c: Context<AppEnv>): { response?: Response; text?: string } {
  const answered: { response?: Response; text?: string } = {};
  const newResponse = c.newResponse as (data: unknown, arg?: unknown, headers?: Record<string, string | string[]>) => Response;
  const body = (data: unknown, arg?: unknown, headers?: Record<string, string | string[]>) => {
    const response = newResponse(data, arg, headers);
    if (typeof data === "string") {
      answered.response = response;
      answered.text = data;
    }
    return response;
  };
  c.body = body as typeof c.body;
  c.json = ((object: unknown, arg?: unknown, headers?: Record<string, string | string[]>) => body(JSON.stringify(object), arg, { "Content-Type": "application/json", ...headers })) as typeof c.json;
  return answered;
}

const opaque = (tag: string) => tag.trim().replace(/^W\//, "");

/**
 * The entity tags an If-None-Match header names, for weak comparison (without `W/`), or "*" for
 * any. A handler that can skip work for an unchanged object (a large dataset) reads these first
 * and answers 304 itself when the object's tag is among them (this middleware passes any non-200).
 */
export function ifNoneMatchTags(ifNoneMatch: string): string[] | "*" {
  return ifNoneMatch.trim() === "*" ? "*" : ifNoneMatch.split(",").map(opaque);
}

/** Whether If-None-Match names `etag` (weak comparison, RFC 9110). */
function ifNoneMatchNames(ifNoneMatch: string, etag: string): boolean {
  const tags = ifNoneMatchTags(ifNoneMatch);
  return tags === "*" || tags.includes(opaque(etag));
}

const utf8 = new TextEncoder();

/** The ETag (without quotes) of a representation: a digest of its media type and bytes. */
export async function representationDigest(body: ArrayBuffer | Uint8Array, contentType: string): Promise<string> {
  const type = utf8.encode(`${contentType}\n`);
  const data = new Uint8Array(type.length + body.byteLength);
  data.set(type);
  data.set(body instanceof Uint8Array ? body : new Uint8Array(body), type.length);
  return digestOf(data);
}

/**
 * The isolate's buffer for the bytes of a text answer's digest, grown to the largest answer up to
 * SCRATCH_LIMIT: encoding into it is a copy, where `encode` of the type and text joined first
 * flattened the joined string and then allocated its bytes (together some 100 µs and 300 KB of
 * garbage for a list of 300 accounts, against 5 µs). Safe to reuse: digest() copies its input
 * before it returns, and nothing awaits between the encoding and that call.
 */
let scratch = new Uint8Array(16 * 1024);
const SCRATCH_LIMIT = 1024 * 1024;

/** representationDigest of a text answer: the same bytes, encoded without a copy of the text. */
export function textDigest(text: string, contentType: string): Promise<string> {
  const head = `${contentType}\n`;
  // A character is at least one byte of UTF-8: an ASCII answer (JSON's usual) needs exactly this.
  const least = head.length + text.length;
  if (least > SCRATCH_LIMIT) return digestOf(utf8.encode(head + text));
  if (scratch.length < least) scratch = new Uint8Array(Math.min(SCRATCH_LIMIT, least * 2));
  const typed = utf8.encodeInto(head, scratch);
  const body = utf8.encodeInto(text, scratch.subarray(typed.written));
  // Characters beyond ASCII that did not fit: encoded the plain way.
  if (body.read < text.length) return digestOf(utf8.encode(head + text));
  return digestOf(scratch.subarray(0, typed.written + body.written));
}

async function digestOf(data: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", data)), 16);
}
