import { ephemeralSecret, PageTokenCodec } from "../domain/page-token";
import { logFormatOf, type LogFormat } from "../middleware/request-log/format";
import { parseShardConfig, type ShardConfig } from "../db/shards/config";
import type { Bindings } from "./types";

/** Settings read from the Worker's vars (wrangler.toml [vars], or .dev.vars locally). */
export interface Config {
  contextPath: string;
  maxBodyBytes: number;
  credentialCacheTtlMs: number;
  exposeRoundTrips: boolean;
  /** Bench only (EXPOSE_D1_STATEMENTS, never in wrangler.toml): record each request's D1 statements for its floor. */
  exposeD1Statements: boolean;
  /** Exact origins (scheme://host[:port]) whose browser pages may call the API with credentials. */
  corsAllowedOrigins: ReadonlySet<string>;
  /** Seals page tokens with PAGE_TOKEN_KEY (comma-separated: the current key first, then older ones still accepted). */
  pageTokens: PageTokenCodec;
  /** Largest `data` of a JSON dataset, in UTF-8 bytes (413 above it). */
  maxDatasetBytes: number;
  /** Largest body of a whole-account import, in bytes (413 above it): MAX_IMPORT_BYTES, default 16 MiB. */
  maxImportBytes: number;
  /** Most JSON datasets one account may hold (409 DATASET_LIMIT beyond). */
  maxDatasetsPerAccount: number;
  /** Deepest a library folder may sit (root = 0): MAX_FOLDER_DEPTH, 0 to 32, default 6. */
  maxFolderDepth: number;
  /** LOG_FORMAT: the request log's form, "json" (default) or "pretty" (src/middleware/request-log). */
  logFormat: LogFormat;
  /** DIRECTORY and SHARDS: which D1 bindings hold the directory and the accounts (db/shards/config.ts). */
  shards: ShardConfig;
}

// The env object lives as long as the isolate: parse its vars once, not on every request.
const parsed = new WeakMap<Bindings, Config>();

export function readConfig(env: Bindings): Config {
  let config = parsed.get(env);
  if (!config) parsed.set(env, (config = parseConfig(env)));
  return config;
}

function parseConfig(env: Bindings): Config {
  return {
    contextPath: normaliseContextPath(env.CONTEXT_PATH),
    maxBodyBytes: positiveInt(env.MAX_BODY_BYTES, 1_048_576),
    credentialCacheTtlMs: positiveInt(env.CREDENTIAL_CACHE_TTL_SECONDS, 30, true) * 1000,
    exposeRoundTrips: env.EXPOSE_D1_ROUND_TRIPS === "true",
    exposeD1Statements: env.EXPOSE_D1_STATEMENTS === "true",
    corsAllowedOrigins: new Set(
      (env.CORS_ALLOWED_ORIGINS ?? "")
        .split(",")
        .map((o) => o.trim().replace(/\/+$/, ""))
        // "*" would hand every site the caller's credentials: never honoured.
        .filter((o) => o && o !== "*"),
    ),
    pageTokens: new PageTokenCodec(pageTokenSecrets(env.PAGE_TOKEN_KEY)),
    maxDatasetBytes: positiveInt(env.MAX_DATASET_BYTES, 5_242_880),
    maxImportBytes: positiveInt(env.MAX_IMPORT_BYTES, 16_777_216),
    maxDatasetsPerAccount: positiveInt(env.MAX_DATASETS_PER_ACCOUNT, 100),
    // Capped so a materialized path (37 characters per level) stays short and a chain stays one small lookup.
    maxFolderDepth: Math.min(positiveInt(env.MAX_FOLDER_DEPTH, 6, true), 32),
    logFormat: logFormatOf(env.LOG_FORMAT),
    shards: parseShardConfig(env.DIRECTORY, env.SHARDS),
  };
}

/** "composer/" or "/composer/" become "/composer"; empty stays empty. */
export function normaliseContextPath(raw: string | undefined): string {
  const trimmed = (raw ?? "").trim().replace(/^\/+|\/+$/g, "");
  return trimmed ? `/${trimmed}` : "";
}

function positiveInt(raw: string | undefined, fallback: number, allowZero = false): number {
  const n = Number(raw);
  return Number.isInteger(n) && (n > 0 || (allowZero && n === 0)) ? n : fallback;
}

function pageTokenSecrets(raw: string | undefined): string[] {
  const secrets = (raw ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  if (secrets.length > 0) return secrets;
  // Without a configured key, tokens still work but only within this isolate: say so once.
  console.warn(JSON.stringify({ level: "warn", message: "PAGE_TOKEN_KEY is not set: page tokens are sealed with a key that lives only as long as this isolate" }));
  return [ephemeralSecret()];
}
