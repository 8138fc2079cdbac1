/**
 * The parameters of the two PostgreSQL connectors, and where they lead: a host to dial
 * (checked against the host policy) or a Hyperdrive binding.
 */
import { checkHost } from "../../domain/connectors/host-policy";
import { checkParameters, type ParameterDescriptor, type ParameterProblem, type ParameterValues } from "../../domain/connectors/parameters";
import type { ConnectorEnvironment } from "../connector";
import { ConnectorError, throwIfInvalid } from "../connector-error";

/**
 * How TLS is negotiated, as in libpq, within what a Worker can do:
 * - disable: plain TCP; password and data travel in clear text.
 * - prefer:  ask for TLS; when the server declines it, or the handshake fails (for example
 *            a self-signed certificate), connect again without TLS. test() warns then.
 * - require: TLS or nothing. Workers always verify the certificate (valid for the host
 *            name, issued by a publicly trusted authority): there is no way to skip it,
 *            so "require" here is as strict as libpq's verify-full.
 */
export const SSL_MODES = ["disable", "prefer", "require"] as const;
export type SslMode = (typeof SSL_MODES)[number];

export const DEFAULT_POSTGRES_PORT = 5432;

export const DIRECT_PARAMETERS: readonly ParameterDescriptor[] = [
  { key: "host", label: "Host", valueType: "STRING", required: true, secret: false, helper: "Host name or IP address of the PostgreSQL server." },
  { key: "port", label: "Port", valueType: "INTEGER", required: false, secret: false, defaultValue: String(DEFAULT_POSTGRES_PORT) },
  { key: "database", label: "Database", valueType: "STRING", required: true, secret: false },
  { key: "user", label: "User", valueType: "STRING", required: true, secret: false, helper: "A role that may read the data; a read-only role is best." },
  { key: "password", label: "Password", valueType: "PASSWORD", required: false, secret: true },
  {
    key: "sslmode",
    label: "TLS mode",
    valueType: "STRING",
    required: false,
    secret: false,
    allowedValues: SSL_MODES,
    defaultValue: "require",
    helper: "require: TLS with a verified certificate; prefer: TLS when possible, else clear text; disable: clear text.",
  },
  {
    key: "ssl",
    label: "TLS (deprecated)",
    valueType: "BOOLEAN",
    required: false,
    secret: false,
    deprecated: "Use sslmode instead: ssl=true is sslmode=require, ssl=false is sslmode=disable (ssl applies only when sslmode is not set).",
  },
];

export const HYPERDRIVE_PARAMETERS: readonly ParameterDescriptor[] = [
  {
    key: "hyperdriveBinding",
    label: "Hyperdrive binding",
    valueType: "STRING",
    required: true,
    secret: false,
    helper: "Name of a Hyperdrive binding of this service; the database and its credentials are configured there.",
  },
];

export interface DirectTarget {
  kind: "direct";
  /** Canonical spelling, as allowed by the host policy. */
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
  sslmode: SslMode;
}

export interface HyperdriveTarget {
  kind: "hyperdrive";
  bindingName: string;
  binding: Hyperdrive;
}

export type PostgresTarget = DirectTarget | HyperdriveTarget;

export function directProblems(values: ParameterValues): ParameterProblem[] {
  const { values: checked, problems } = checkParameters(DIRECT_PARAMETERS, values);
  const port = Number(checked.port ?? DEFAULT_POSTGRES_PORT);
  if (checked.port !== undefined && !(port >= 1 && port <= 65535)) problems.push({ key: "port", message: "Port must be between 1 and 65535." });
  for (const key of ["database", "user"] as const) {
    if (checked[key]?.includes("\u0000")) problems.push({ key, message: `${key} must not contain a NUL character.` });
  }
  return problems;
}

/** The host policy as a parameter problem, so that a connection to a host this service may not reach is refused before it is stored. */
export function directHostProblems(values: ParameterValues, environment: ConnectorEnvironment): ParameterProblem[] {
  const { values: checked, problems } = checkParameters(DIRECT_PARAMETERS, values);
  if (checked.host === undefined || problems.some((p) => p.key === "host" || p.key === "port")) return [];
  const verdict = checkHost(environment.hostPolicy, checked.host, Number(checked.port));
  return verdict.allowed ? [] : [{ key: "host", message: verdict.reason }];
}

export function hyperdriveProblems(values: ParameterValues, environment: ConnectorEnvironment): ParameterProblem[] {
  const { values: checked, problems } = checkParameters(HYPERDRIVE_PARAMETERS, values);
  const name = checked.hyperdriveBinding;
  if (name !== undefined && !Object.hasOwn(environment.hyperdrives, name)) {
    problems.push({ key: "hyperdriveBinding", message: `This service has no Hyperdrive binding named "${name}" that connections may use.` });
  }
  return problems;
}

/** The host to dial. Throws INVALID_PARAMETERS, or HOST_NOT_ALLOWED before any connection. */
export function directTarget(values: ParameterValues, environment: ConnectorEnvironment): DirectTarget {
  throwIfInvalid(directProblems(values));
  const { values: checked } = checkParameters(DIRECT_PARAMETERS, values);
  const port = Number(checked.port);
  const verdict = checkHost(environment.hostPolicy, checked.host, port);
  if (!verdict.allowed) throw new ConnectorError("HOST_NOT_ALLOWED", verdict.reason);
  return {
    kind: "direct",
    host: verdict.host,
    port,
    database: checked.database,
    user: checked.user,
    password: checked.password ?? "",
    sslmode: sslModeOf(values, checked),
  };
}

// The deprecated "ssl" decides only when "sslmode" is not set.
function sslModeOf(given: ParameterValues, checked: Record<string, string>): SslMode {
  if (!given.sslmode?.trim() && checked.ssl !== undefined) return checked.ssl === "true" ? "require" : "disable";
  return checked.sslmode as SslMode;
}

/** No host policy here: the binding's origin was configured by the operator, not by a user. */
export function hyperdriveTarget(values: ParameterValues, environment: ConnectorEnvironment): HyperdriveTarget {
  throwIfInvalid(hyperdriveProblems(values, environment));
  const bindingName = values.hyperdriveBinding.trim();
  return { kind: "hyperdrive", bindingName, binding: environment.hyperdrives[bindingName] };
}

/** For messages: "db.example.com:5432" or 'Hyperdrive binding "SALES_DB"'. */
export function describeTarget(target: PostgresTarget): string {
  if (target.kind === "hyperdrive") return `Hyperdrive binding "${target.bindingName}"`;
  return target.host.includes(":") ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
}
