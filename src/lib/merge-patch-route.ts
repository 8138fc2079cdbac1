import { z, type RouteConfig } from "@hono/zod-openapi";
import type { Context, Handler } from "hono";
import { applyMergePatch } from "../domain/merge-patch";
import { ApiError, invalid, validationError } from "./errors";
import { VENDOR_JSON } from "./media-types";
import { jsonBody, routeDeclaration, type RouteExtras } from "./openapi";
import type { AppEnv } from "./types";

/**
 * PATCH with JSON Merge Patch semantics (RFC 7396), made once for every resource that has a
 * full-replace PUT: the PATCH reads the current representation (the resource's own GET), merges
 * the patch into it (src/domain/merge-patch.ts), validates the result with the PUT's body schema,
 * and runs the PUT's write on it, with the PUT's guards and batch. So a PATCH can do nothing a
 * PUT could not, and a member it omits is exactly what the object holds.
 *
 * Concurrency: the write runs under an implied If-Match, the ETag the PATCH read (ifMatchOf in
 * src/lib/http.ts), so a change between the read and the write is never overwritten. A client's
 * own If-Match is checked against the representation read (412, as on PUT). Without one, a lost
 * race is retried from a fresh read, MAX_ATTEMPTS times in all, then answered 409 CONCURRENT_UPDATE.
 */
const MAX_ATTEMPTS = 3;

export const MERGE_PATCH_SUMMARY_NOTE =
  "JSON Merge Patch (RFC 7396): the members sent replace the object's, null removes one (clears it, or restores its default), objects merge, arrays replace. Names as in the object's representation (or their aliases). Write-only members (passwords, secret values) are kept unless sent. The result must be a valid body of the PUT.";

/** The declaration of the PATCH beside a PUT declaration: same path, access, query and errors; a merge patch body. */
export function mergePatchRouteOf(declaration: object, summary: string, schemaName: string): RouteConfig & RouteExtras & { method: "patch" } {
  const put = declaration as RouteConfig & RouteExtras;
  const { 201: _created, ...responses } = put.responses as Record<string, unknown>;
  const putSchema = bodySchemaOf(put);
  const body = z
    .record(z.string(), z.unknown())
    .openapi(schemaName, { description: `A JSON Merge Patch (RFC 7396) of the object's representation; the merged result is validated as the PUT's body (${putSchema.meta()?.id ?? "see PUT"}).` });
  // routeDeclaration: a route's declaration, whose prose the deploy build leaves out (scripts/build-without-docs.mjs).
  return routeDeclaration({
    ...put,
    method: "patch",
    summary,
    description: MERGE_PATCH_SUMMARY_NOTE,
    errors: [...new Set([...(put.errors ?? []), "PRECONDITION_FAILED", "CONCURRENT_UPDATE", "NOT_FOUND"] as const)],
    request: { ...put.request, body: jsonBody(body) },
    responses,
  } as RouteConfig & RouteExtras & { method: "patch" });
}

function bodySchemaOf(route: RouteConfig): z.ZodType {
  const schema = (route.request?.body?.content as Record<string, { schema: z.ZodType }> | undefined)?.[VENDOR_JSON]?.schema;
  if (!schema) throw new Error(`${route.method} ${route.path} has no JSON body to patch`);
  return schema;
}

/** The members an object schema knows (under its pipes and effects), or undefined for any other schema. */
function knownMembers(schema: z.ZodType): Set<string> | undefined {
  let current: unknown = schema;
  for (let depth = 0; depth < 8 && current; depth++) {
    const def = (current as { def?: Record<string, unknown> }).def;
    if (!def) return undefined;
    if (def.type === "object") return new Set(Object.keys(def.shape as object));
    current = def.in ?? def.innerType ?? def.schema;
  }
  return undefined;
}

export interface MergePatchOptions {
  /** The resource's GET of the same path: answers the representation and its ETag. */
  read: Handler<AppEnv>;
  /** The PUT's route (its body schema validates the merged result) and handler (the write). */
  put: RouteConfig;
  write: Handler<AppEnv>;
  /** The reference product's names accepted in the patch (alias → our member), as the PUT accepts them. */
  aliases?: Record<string, string>;
  /**
   * Members the PUT keeps when omitted and that cannot be removed (a user's password, a dataset's
   * data): merged only when the patch names them, and null for them is a 400, not a silent no-op.
   */
  keptWhenOmitted?: string[];
}

const noNext = async () => {};

export function mergePatchHandler(options: MergePatchOptions) {
  const schema = bodySchemaOf(options.put);
  const members = knownMembers(schema);
  return async (c: Context<AppEnv>) => {
    const patch = renameAliases((c.req.valid as (target: "json") => Record<string, unknown>)("json"), options.aliases ?? {});
    for (const member of options.keptWhenOmitted ?? []) {
      if (patch[member] === null) throw invalid(`body.${member}`, "Cannot be removed: omit it to keep the current value, or send a new one");
    }
    return underReadRevision(c, async (guardWith) => {
      const { representation, etag } = await readCurrent(c, options.read);
      const clientIfMatch = c.req.header("If-Match");
      if (clientIfMatch) checkTag(clientIfMatch, etag);
      const target: Record<string, unknown> = {};
      for (const [member, value] of Object.entries(representation)) {
        // Read-only members the PUT does not take, and kept members the patch leaves alone, stay out.
        if (members && !members.has(member)) continue;
        if (options.keptWhenOmitted?.includes(member) && !(member in patch)) continue;
        target[member] = value;
      }
      const merged = applyMergePatch(target, patch);
      const parsed = schema.safeParse(merged);
      if (!parsed.success) throw validationError(parsed.error, "json");
      c.req.addValidatedData("json", parsed.data as object);
      c.set("rawJsonBody", JSON.stringify(merged));
      guardWith(etag);
      return (await options.write(c, noNext)) as Response;
    });
  };
}

/**
 * Runs a read-then-write `attempt` whose write must not overwrite a change made since its read:
 * `guardWith(etag)` makes the write obey that ETag as an If-Match (ifMatchOf). With the client's own
 * If-Match, a lost race is the client's 412; without it, the attempt runs again from a fresh read,
 * MAX_ATTEMPTS times in all, then 409 CONCURRENT_UPDATE.
 */
export async function underReadRevision(c: Context<AppEnv>, attempt: (guardWith: (etag: string) => void) => Promise<Response>): Promise<Response> {
  const clientIfMatch = c.req.header("If-Match");
  for (let round = 1; ; round++) {
    c.set("impliedIfMatch", undefined);
    try {
      return await attempt((etag) => c.set("impliedIfMatch", etag));
    } catch (err) {
      const lostRace = !clientIfMatch && c.get("impliedIfMatch") !== undefined && err instanceof ApiError && err.errorCode === "PRECONDITION_FAILED";
      if (!lostRace) throw err;
      if (round >= MAX_ATTEMPTS) throw new ApiError("CONCURRENT_UPDATE", `The object kept changing while the change was applied (${MAX_ATTEMPTS} attempts); retry`);
    }
  }
}

/**
 * The representation and ETag the resource's GET answers. Its `c.json`, or its `c.body` of one JSON
 * text (a JSON dataset's), is taken before it becomes a Response: the object goes through JSON text
 * as it would have (the same members, dates as text), without a Response to build and read back. Its
 * headers are set as they were (the ETag too).
 */
async function readCurrent(c: Context<AppEnv>, read: Handler<AppEnv>) {
  const json = c.json;
  const body = c.body;
  const header = c.header;
  let answered: { text: string; status: unknown } | undefined;
  let etag: string | undefined;
  const take = (text: string, status: unknown, headers?: Record<string, unknown>) => {
    answered = { text, status: status ?? 200 };
    if (typeof headers?.ETag === "string") etag = headers.ETag;
    return ANSWERED;
  };
  c.json = ((object: unknown, status?: unknown, headers?: Record<string, unknown>) => take(JSON.stringify(object), status, headers)) as typeof c.json;
  // A GET that writes its own JSON text (a JSON dataset's) is taken the same way when the text is one string.
  c.body = ((data: unknown, status?: unknown, headers?: Record<string, unknown>) =>
    typeof data === "string" && (status ?? 200) === 200 ? take(data, status, headers) : (body as (...args: unknown[]) => Response)(data, status, headers)) as typeof c.body;
  c.header = ((name: string, value?: string, options?: { append?: boolean }) => {
    if (name === "ETag") etag = value;
    header(name, value, options);
  }) as typeof c.header;
  let response: Response;
  try {
    response = (await read(c, noNext)) as Response;
  } finally {
    c.json = json;
    c.body = body;
    c.header = header;
  }
  if (response === ANSWERED && answered) return representationOf(answered.status, answered.text, etag);
  // A GET that streamed its body (a JSON dataset of several chunks), or answered 304.
  return representationOf(response.status, await response.text(), response.headers.get("ETag") ?? undefined);
}

function representationOf(status: unknown, text: string, etag: string | undefined) {
  // A GET answers 304 to an If-None-Match naming its ETag: for a write, that precondition failed (RFC 9110 13.1.2).
  if (status === 304) throw new ApiError("PRECONDITION_FAILED", "If-None-Match names the object's current ETag");
  if (status !== 200 || !etag) throw new Error(`The read of a PATCH answered ${String(status)} without an ETag`);
  return { representation: JSON.parse(text) as Record<string, unknown>, etag };
}

/** What the GET's c.json gives back while readCurrent takes its object. */
const ANSWERED = Object.freeze({}) as Response;

/** If-Match against the ETag read: strong comparison, `*` matches any existing object. */
function checkTag(ifMatch: string, etag: string): void {
  if (ifMatch.trim() === "*") return;
  if (!ifMatch.split(",").map((tag) => tag.trim()).includes(etag)) {
    throw new ApiError("PRECONDITION_FAILED", `If-Match ${ifMatch} does not match the current ETag ${etag}`);
  }
}

/** An alias in the patch stands for our member (null included) unless the patch names both: then the PUT compares them. */
function renameAliases(patch: Record<string, unknown>, aliases: Record<string, string>): Record<string, unknown> {
  const renamed = { ...patch };
  for (const [alias, ours] of Object.entries(aliases)) {
    if (alias in renamed && !(ours in renamed)) {
      renamed[ours] = renamed[alias];
      delete renamed[alias];
    }
  }
  return renamed;
}
