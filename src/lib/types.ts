import type { TrustedClient } from "../auth/client";
import type { AuditTrail } from "../db/audit-trail";
import type { Database } from "../db/client";
import type { RoundTripCounter } from "../db/round-trips";
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
  db: Database;
  roundTrips: RoundTripCounter;
  /** The request's audit trail: a write declares its events here, and they ride in its batch. */
  audit: AuditTrail;
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
