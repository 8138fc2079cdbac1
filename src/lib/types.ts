import type { TrustedClient } from "../auth/client";
import type { Database } from "../db/client";
import type { RoundTripCounter } from "../db/round-trips";
import type { Principal } from "../domain/principal";
import type { Config } from "./config";

export interface Bindings {
  DB: D1Database;
  LOGIN_RATE_LIMITER?: RateLimit;
  LOGIN_ADDRESS_RATE_LIMITER?: RateLimit;
  SUPERVISOR_USERNAME?: string;
  SUPERVISOR_PASSWORD?: string;
  CONTEXT_PATH?: string;
  MAX_BODY_BYTES?: string;
  CREDENTIAL_CACHE_TTL_SECONDS?: string;
  EXPOSE_D1_ROUND_TRIPS?: string;
  PAGE_TOKEN_KEY?: string;
  CORS_ALLOWED_ORIGINS?: string;
  MAX_DATASET_BYTES?: string;
  MAX_DATASETS_PER_ACCOUNT?: string;
  MAX_FOLDER_DEPTH?: string;
  /** Seals the secret parameters of connections (comma-separated to rotate); see routes/connections/secrets.ts. */
  CONNECTION_SECRETS_KEY?: string;
  /** Read by connectors/environment.ts. */
  CONNECTOR_ALLOWED_HOSTS?: string;
  CONNECTOR_CONNECT_TIMEOUT_MS?: string;
  CONNECTOR_OPERATION_TIMEOUT_MS?: string;
  CONNECTOR_MAX_RESPONSE_BYTES?: string;
  CONNECTOR_HYPERDRIVE_BINDINGS?: string;
}

export interface Variables {
  requestId: string;
  config: Config;
  db: Database;
  roundTrips: RoundTripCounter;
  /** Set by the authentication middleware on every route that is not public. */
  principal: Principal;
  /** Set instead of `principal` on the trusted-access token endpoints: the client that authenticated. */
  client?: TrustedClient;
  /** The request body's text exactly as sent, for routes that store JSON byte for byte. */
  rawJsonBody?: string;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: Variables;
}
