import type { MiddlewareHandler } from "hono";
import { findJsonFlaw, mayHaveJsonFlaw, memberName } from "../../domain/json-hygiene";
import type { Config } from "../../lib/config";
import { ApiError } from "../../lib/errors";
import type { AppEnv } from "../../lib/types";

/**
 * Request bodies are read here, once, as they stream in:
 *  - `readJsonBody` (each route that takes a body, after its access rule) counts bytes as they
 *    arrive and answers 413 as soon as the route's cap is passed, whether or not a length was
 *    declared; then it decodes strict UTF-8, parses JSON, and refuses lone surrogates and
 *    excessive nesting anywhere in the body, naming the member;
 *  - `drainUnreadBody` (app-wide) reads and discards whatever a request still has unread once
 *    its answer is ready. A server that answers and closes while the client is still sending
 *    makes the client see a connection reset instead of the answer (tried: a 10 MB chunked
 *    body answered 413 after its first megabyte reset most of the time); drained, the client
 *    finishes sending and reads the 413. Nothing is kept while draining, and past
 *    DRAIN_LIMIT_BYTES the rest is left to the connection's fate.
 */
export const DRAIN_LIMIT_BYTES = 32 * 1024 * 1024;
/** Deepest nesting any JSON body may have; free-form members have their own, lower cap. */
export const MAX_BODY_DEPTH = 64;

export type BodyCap = (config: Config) => number;
export const defaultBodyCap: BodyCap = (config) => config.maxBodyBytes;

const tooLarge = (cap: number) => new ApiError("PAYLOAD_TOO_LARGE", `Request body is larger than ${cap} bytes`);
const malformed = (message: string) =>
  new ApiError("MALFORMED_JSON", message, { problems: [{ name: "body", message, level: "ERROR" }] });

// One decoder per isolate: decode() without `stream` starts afresh on every call.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

export function readJsonBody(cap: BodyCap = defaultBodyCap): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const request = c.req.raw;
    // Said here, before the validator's media-type gate would answer 415 for a foreign Content-Type:
    // a request without a body is never refused for its type, only for lacking the body.
    if (!request.body) throw malformed("The request body is empty; this operation needs a JSON body");
    const maxBytes = cap(c.get("config"));
    const declared = Number(request.headers.get("Content-Length") ?? Number.NaN);
    if (declared > maxBytes) throw tooLarge(maxBytes);

    // With a declared length within the cap the body is read in one call: HTTP's framing ends it
    // at that length. Without one (chunked), it is counted as it streams in.
    const bytes = declared >= 0 ? new Uint8Array(await request.arrayBuffer()) : await readCapped(request.body, maxBytes);
    let text: string;
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      throw malformed("The request body is not valid UTF-8");
    }
    if (text.trim() === "") throw malformed("The request body is empty; this operation needs a JSON body");
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw malformed("Malformed JSON in request body");
    }
    // The walk of the parsed value only for a text that can have a flaw (most bodies cannot).
    const flaw = mayHaveJsonFlaw(text, MAX_BODY_DEPTH) ? findJsonFlaw(value, MAX_BODY_DEPTH) : undefined;
    if (flaw) {
      const name = memberName("body", flaw.path);
      const message =
        flaw.kind === "LONE_SURROGATE"
          ? "Contains a lone surrogate (an unpaired \\uD800-\\uDFFF escape), which cannot be stored as sent"
          : `Nested more than ${MAX_BODY_DEPTH} levels deep`;
      throw new ApiError("VALIDATION_FAILED", `Invalid request: ${name}: ${message}`, { problems: [{ name, message, level: "ERROR" }] });
    }
    c.set("rawJsonBody", text);
    // The validator asks the request for its JSON: hand it the value parsed here instead of parsing the text again.
    (c.req as unknown as { json: () => Promise<unknown> }).json = () => Promise.resolve(value);
    return next();
  };
}

async function readCapped(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      // Stop buffering at once; drainUnreadBody reads the rest without keeping it.
      if (size > maxBytes) throw tooLarge(maxBytes);
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

export const drainUnreadBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  // Read already (its route parsed it), or none: nothing to drain.
  if (c.req.raw.bodyUsed) return;
  const body = c.req.raw.body;
  if (!body || body.locked) return;
  if (Number(c.req.raw.headers.get("Content-Length") ?? 0) > DRAIN_LIMIT_BYTES) return;
  const reader = body.getReader();
  try {
    for (let drained = 0; drained <= DRAIN_LIMIT_BYTES; ) {
      const { done, value } = await reader.read();
      if (done) break;
      drained += value.byteLength;
    }
  } catch {
    // The client went away: nothing left to protect.
  } finally {
    reader.releaseLock();
  }
};
