import type { Context } from "hono";
import type { DatasetSummary } from "../../db/json-datasets";
import { auditOut, etagOf } from "../../lib/http";
import { VENDOR_JSON } from "../../lib/media-types";
import type { AppEnv } from "../../lib/types";

/** A dataset as the API shows it, without `data` (a list item; the head of a full answer). */
export function toDatasetSummary(row: DatasetSummary) {
  return {
    id: row.id,
    name: row.name,
    description: row.description ?? null,
    accountId: row.accountId,
    ...auditOut(row),
  };
}

/**
 * A dataset's answer with its data: the other members, then `data` written verbatim from the
 * stored chunks (never parsed, so never changed), with the dataset's revision as ETag.
 *
 * Typed `never` (here and in notModified) because the route types expect what c.json() returns;
 * this body is JSON of the declared JsonDataset shape, written without c.json().
 */
export function datasetResponse(c: Context<AppEnv>, status: 200 | 201, dataset: DatasetSummary, chunks: string[]): never {
  c.header("ETag", etagOf(dataset.revision));
  return c.body(datasetBody(toDatasetSummary(dataset), chunks), status, { "Content-Type": c.get("mediaType") ?? VENDOR_JSON }) as never;
}

/** 304 for a GET whose If-None-Match names the dataset's revision (the conditional-get middleware passes it on as is). */
export function notModified(c: Context<AppEnv>, revision: string): never {
  c.header("ETag", etagOf(revision));
  return c.body(null, 304) as never;
}

/**
 * The answer's body: one string when the data is one stored chunk (at most CHUNK_MAX_BYTES, sent with
 * its length, without a stream's per-piece work), else streamed piece by piece (jsonWithRawMember).
 */
export function datasetBody(members: Record<string, unknown>, chunks: string[]): string | ReadableStream<Uint8Array> {
  return chunks.length > 1 ? jsonWithRawMember(members, "data", chunks) : textPieces(members, "data", chunks).join("");
}

/** The JSON text of `members` plus a member `name` whose value is the JSON text `rawValue`, in pieces: the head, each of `rawValue`, the end. */
function textPieces(members: Record<string, unknown>, name: string, rawValue: string[]): string[] {
  const head = JSON.stringify(members);
  return [`${head.slice(0, -1)}${head === "{}" ? "" : ","}${JSON.stringify(name)}:`, ...rawValue, "}"];
}

/**
 * The JSON text of `members` plus one member `name` whose value is the JSON text `rawValue`, given
 * in pieces, as a byte stream. Pieces are encoded one at a time, only when the client is ready for
 * the next (highWaterMark 0), and released once encoded: a 5 MB value is never concatenated into
 * one string nor encoded whole. Beside the pieces the caller already holds, at most one encoded
 * piece is in memory at a time.
 */
export function jsonWithRawMember(members: Record<string, unknown>, name: string, rawValue: string[]): ReadableStream<Uint8Array> {
  const pieces = textPieces(members, name, rawValue);
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        controller.enqueue(encoder.encode(pieces[next]));
        pieces[next] = "";
        if (++next === pieces.length) controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}
