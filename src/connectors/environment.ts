/**
 * The connectors' environment, read from the Worker's vars and bindings:
 *
 * | var | default | meaning |
 * |---|---|---|
 * | CONNECTOR_ALLOWED_HOSTS | empty (any public host) | hosts connections may reach; see domain/connectors/host-policy.ts |
 * | CONNECTOR_CONNECT_TIMEOUT_MS | 5000 | opening a connection (TCP, TLS, login) / waiting for HTTP response headers |
 * | CONNECTOR_OPERATION_TIMEOUT_MS | 15000 | one statement / reading one HTTP body |
 * | CONNECTOR_MAX_RESPONSE_BYTES | 5242880 | largest HTTP body read |
 * | CONNECTOR_HYPERDRIVE_BINDINGS | empty (none) | names of the Hyperdrive bindings connections may use |
 */
import { parseHostPolicy } from "../domain/connectors/host-policy";
import type { ConnectorEnvironment } from "./connector";

export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
export const DEFAULT_OPERATION_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

type Vars = Readonly<Record<string, unknown>>;

// The env object lives as long as the isolate: read it once.
const cache = new WeakMap<object, ConnectorEnvironment>();

/** `env` is the Worker's env (c.env): its vars and bindings are read by name. */
export function connectorEnvironment(env: object): ConnectorEnvironment {
  let environment = cache.get(env);
  if (!environment) cache.set(env, (environment = readEnvironment(env as Vars)));
  return environment;
}

function readEnvironment(env: Vars): ConnectorEnvironment {
  const { policy, invalidEntries } = parseHostPolicy(text(env.CONNECTOR_ALLOWED_HOSTS));
  if (invalidEntries.length > 0) {
    console.warn(JSON.stringify({ event: "connector_allowed_hosts_ignored", entries: invalidEntries }));
  }
  const hyperdrives: Record<string, Hyperdrive> = {};
  for (const name of (text(env.CONNECTOR_HYPERDRIVE_BINDINGS) ?? "").split(",").map((n) => n.trim()).filter(Boolean)) {
    const binding = env[name];
    if (isHyperdrive(binding)) hyperdrives[name] = binding;
    else console.warn(JSON.stringify({ event: "connector_hyperdrive_binding_missing", name }));
  }
  return {
    hostPolicy: policy,
    timeouts: {
      connectMs: positiveInt(env.CONNECTOR_CONNECT_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS),
      operationMs: positiveInt(env.CONNECTOR_OPERATION_TIMEOUT_MS, DEFAULT_OPERATION_TIMEOUT_MS),
    },
    maxResponseBytes: positiveInt(env.CONNECTOR_MAX_RESPONSE_BYTES, DEFAULT_MAX_RESPONSE_BYTES),
    hyperdrives,
  };
}

function isHyperdrive(value: unknown): value is Hyperdrive {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<Hyperdrive>;
  return typeof candidate.connect === "function" && typeof candidate.connectionString === "string";
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function positiveInt(value: unknown, fallback: number): number {
  const n = Number(value);
  return value !== undefined && value !== "" && Number.isInteger(n) && n > 0 ? n : fallback;
}
