import type { TrustedClient } from "../auth/client";
import type { AuditTrail } from "../db/audit-trail";
import type { Database } from "../db/client";
import type { RoundTripCounter } from "../db/round-trips";
import type { RequestSession, ServedBy } from "../db/session";
import type { ShardRoute } from "../db/shards/routing";
import type { Principal } from "../domain/principal";
import type { Config } from "./config";
import type { JsonMediaType } from "./media-types";

/**
 * The Worker's bindings and vars, as `wrangler types` generates them from wrangler.toml and
 * .dev.vars.example into worker-configuration.d.ts (`npm run types`; CI checks they are current).
 * Secrets may be missing from a deployment, so the code treats each as optional.
 */
type Secret = "SUPERVISOR_USERNAME" | "SUPERVISOR_PASSWORD" | "PAGE_TOKEN_KEY" | "CONNECTION_SECRETS_KEY";
export type Bindings = Omit<Env, Secret> &
  Partial<Pick<Env, Secret>> & {
    /** Bench only, never in wrangler.toml: "true" records each request's D1 statements (src/db/round-trips.ts). */
    EXPOSE_D1_STATEMENTS?: string;
  };

export interface Variables {
  requestId: string;
  config: Config;
  /** The handle of the request's account's shard (db/shards/routing.ts): every account-owned row. */
  db: Database;
  /** The directory's handle: accounts, where each lives, user names, the supervisor's objects. On one database, `db` itself. */
  directory: Database;
  /** Set when the directory and the shards are several databases: where the request's shard session is placed. */
  shardRoute?: ShardRoute;
  roundTrips: RoundTripCounter;
  /** The request's audit trail: a write declares its events here, and they ride in its batch. */
  audit: AuditTrail;
  /** The request's one D1 session (db/session.ts): its bookmark, and whether it starts at the primary. */
  d1Session: RequestSession;
  /** The directory's session: `d1Session` itself on one database. */
  directorySession: RequestSession;
  /** Where D1 served each call that said so (`served_by_region`, `served_by_primary`), for the request log. */
  d1ServedBy: readonly ServedBy[];
  /** Set by the authentication middleware on every route that is not public. */
  principal: Principal;
  /** Set instead of `principal` on the trusted-access token endpoints: the client that authenticated. */
  client?: TrustedClient;
  /** The request body's text exactly as sent, for routes that store JSON byte for byte. */
  rawJsonBody?: string;
  /** The JSON media type negotiated for the answer (src/middleware/media-type); unset outside /api. */
  mediaType?: JsonMediaType;
  /** The If-Match a PATCH implies for the PUT write it runs (src/lib/merge-patch-route.ts); read through ifMatchOf. */
  impliedIfMatch?: string;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: Variables;
}
