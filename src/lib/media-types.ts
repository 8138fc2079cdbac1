/**
 * The JSON media types the API reads and writes, and how the answer's type is chosen. One place:
 * the media-type middleware applies it to every request under /api, the error bodies follow it,
 * and the OpenAPI document lists these types for every JSON body (src/lib/openapi.ts).
 *
 * Besides the service's own vendor type and plain JSON, the reference product's vendor types are
 * spoken, so that its clients work unchanged: the Composer client sends
 * `application/vnd.composer.v3+json` on every request, older Zoomdata tools send
 * `application/vnd.zoomdata+json` (and list `application/vnd.zoomdata.v2+json` first in Accept,
 * which is not spoken here: the negotiation passes over it).
 */
export const VENDOR_JSON = "application/vnd.service.v3+json";
export const COMPOSER_JSON = "application/vnd.composer.v3+json";
export const ZOOMDATA_JSON = "application/vnd.zoomdata+json";

/** Every JSON media type spoken, the service's own first: the answer when nothing else decides. */
export const JSON_MEDIA_TYPES = [VENDOR_JSON, "application/json", COMPOSER_JSON, ZOOMDATA_JSON] as const;
export type JsonMediaType = (typeof JSON_MEDIA_TYPES)[number];

/**
 * JSON Merge Patch (RFC 7396): accepted as the body of a PATCH, besides the JSON types; never an
 * answer's type (the answer is the object, negotiated as for any request).
 */
export const MERGE_PATCH_JSON = "application/merge-patch+json";

/** `Application/JSON; charset=utf-8` → `application/json`: the type without parameters, lower case. */
export function essenceOf(contentType: string | null | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** The spoken type a Content-Type names (parameters such as charset allowed), or undefined. */
export function jsonMediaTypeOf(contentType: string | null | undefined): JsonMediaType | undefined {
  const essence = essenceOf(contentType);
  return JSON_MEDIA_TYPES.find((type) => type === essence);
}

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
  /** Position in the Accept header: of two exact matches of equal q, the earlier wins. */
  position: number;
}

/** The ranges of an Accept header; malformed ranges and q-values are passed over (RFC 9110 section 12.5.1). */
function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  accept.split(",").forEach((part, position) => {
    const [range = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const match = /^([\w.+*-]+)\/([\w.+*-]+)$/.exec(range);
    if (!match) return;
    let q = 1;
    const weight = params.find((p) => /^q\s*=/.test(p));
    if (weight !== undefined) {
      const value = weight.replace(/^q\s*=\s*/, "");
      if (!/^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value)) return;
      q = Number(value);
    }
    ranges.push({ type: match[1]!, subtype: match[2]!, q, position });
  });
  return ranges;
}

/** 2 for an exact match, 1 for `type/*`, 0 for `*\/*`, -1 when the range does not match. */
function specificity(range: MediaRange, mediaType: string): number {
  const [type, subtype] = mediaType.split("/") as [string, string];
  if (range.type === type && range.subtype === subtype) return 2;
  if (range.type === type && range.subtype === "*") return 1;
  if (range.type === "*" && range.subtype === "*") return 0;
  return -1;
}

/**
 * The media type to answer in, or undefined when the Accept header excludes every spoken type (406).
 *  - No Accept (or an empty one): the request's own Content-Type when it is a spoken type, else `preferred`.
 *  - Otherwise each spoken type takes the q of the most specific range that matches it (so
 *    `application/json;q=0, *\/*` excludes plain JSON only). The highest q wins; among equals a type
 *    named exactly beats one reached through a wildcard, and of two named exactly the one listed
 *    first wins; through a wildcard, the request's own Content-Type, then `preferred`, then the
 *    order of JSON_MEDIA_TYPES.
 */
export function negotiate(accept: string | null | undefined, requestType: JsonMediaType | undefined, preferred: JsonMediaType = VENDOR_JSON): JsonMediaType | undefined {
  // A client sends the same Accept on every request: its answer is remembered per isolate.
  // Accept is the client's to choose: a bounded memory (short headers only, forgotten whole when full).
  if ((accept?.length ?? 0) > REMEMBERED_ACCEPT_LENGTH) return negotiateAnew(accept, requestType, preferred);
  const key = `${accept ?? ""}\n${requestType ?? ""}\n${preferred}`;
  const known = negotiated.get(key);
  if (known !== undefined || negotiated.has(key)) return known;
  if (negotiated.size >= NEGOTIATED_KEPT) negotiated.clear();
  const answer = negotiateAnew(accept, requestType, preferred);
  negotiated.set(key, answer);
  return answer;
}

const NEGOTIATED_KEPT = 256;
const REMEMBERED_ACCEPT_LENGTH = 256;
const negotiated = new Map<string, JsonMediaType | undefined>();

function negotiateAnew(accept: string | null | undefined, requestType: JsonMediaType | undefined, preferred: JsonMediaType): JsonMediaType | undefined {
  const fallbackOrder = [...new Set([requestType, preferred, ...JSON_MEDIA_TYPES].filter((t): t is JsonMediaType => t !== undefined))];
  if (!accept || accept.trim() === "") return fallbackOrder[0];
  const ranges = parseAccept(accept);
  const candidates = fallbackOrder.flatMap((type, rank) => {
    let best: { range: MediaRange; specificity: number } | undefined;
    for (const range of ranges) {
      const s = specificity(range, type);
      if (s > (best?.specificity ?? -1)) best = { range, specificity: s };
    }
    return best && best.range.q > 0 ? [{ type, q: best.range.q, specificity: best.specificity, order: best.specificity === 2 ? best.range.position : rank }] : [];
  });
  candidates.sort((a, b) => b.q - a.q || b.specificity - a.specificity || a.order - b.order);
  return candidates[0]?.type;
}
