/**
 * PostgreSQL connectors: "postgresql" dials a host given by the connection (checked against
 * the allowed hosts); "postgresql-hyperdrive" goes through a Hyperdrive binding of this
 * service (the production path: pooled, close to the database, origin set by the operator).
 * See ../README.md.
 */
import { secretValues } from "../../domain/connectors/parameters";
import type { ConnectorDefinition } from "../connector";
import { PostgresConnector } from "./postgres-connector";
import { DIRECT_PARAMETERS, directHostProblems, directProblems, directTarget, HYPERDRIVE_PARAMETERS, hyperdriveProblems, hyperdriveTarget } from "./parameters";

// Each call is a short read-only session: list schemas, describe tables and views, preview rows.
const FEATURES = ["LIST_SCHEMAS", "DESCRIBE", "PREVIEW", "READ_ONLY_SESSIONS"];

export const postgresConnector: ConnectorDefinition = {
  id: "postgresql",
  label: "PostgreSQL",
  description: "A PostgreSQL database reached over TCP from the Worker, with optional TLS.",
  parameters: DIRECT_PARAMETERS,
  features: [...FEATURES, "TLS"],
  storageType: { type: "POSTGRESQL", subStorageType: "POSTGRESQL" },
  checkParameters: (values, environment) => [...directProblems(values), ...directHostProblems(values, environment)],
  create: (values, environment) =>
    new PostgresConnector(() => directTarget(values, environment), environment, secretValues(DIRECT_PARAMETERS, values)),
};

export const postgresHyperdriveConnector: ConnectorDefinition = {
  id: "postgresql-hyperdrive",
  label: "PostgreSQL (Hyperdrive)",
  description: "A PostgreSQL database behind one of this service's Cloudflare Hyperdrive bindings.",
  parameters: HYPERDRIVE_PARAMETERS,
  features: [...FEATURES, "CONNECTION_POOLING"],
  storageType: { type: "POSTGRESQL", subStorageType: "HYPERDRIVE" },
  checkParameters: (values, environment) => hyperdriveProblems(values, environment),
  create: (values, environment) =>
    new PostgresConnector(() => hyperdriveTarget(values, environment), environment, secretValues(HYPERDRIVE_PARAMETERS, values)),
};
