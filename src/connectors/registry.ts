/**
 * Every connector the service knows, by id. Adding a connector: a folder next to
 * postgres/ and http-json/ whose index.ts exports a ConnectorDefinition, and one line here.
 */
import type { ConnectionScope, Connector, ConnectorDefinition, ConnectorEnvironment, ParameterValues } from "./connector";
import { ConnectorError } from "./connector-error";
import { httpJsonConnector } from "./http-json";
import { jsonDatasetsConnector } from "./json-datasets";
import { postgresConnector, postgresHyperdriveConnector } from "./postgres";

const DEFINITIONS: readonly ConnectorDefinition[] = [postgresConnector, postgresHyperdriveConnector, httpJsonConnector, jsonDatasetsConnector];

const BY_ID = new Map(DEFINITIONS.map((definition) => [definition.id, definition]));

/** All connectors, e.g. to generate the built-in connection types. */
export function listConnectors(): readonly ConnectorDefinition[] {
  return DEFINITIONS;
}

export function findConnector(id: string): ConnectorDefinition | undefined {
  return BY_ID.get(id);
}

/** Makes a connector for a connection; an unknown id is INVALID_PARAMETERS. */
export function createConnector(id: string, values: ParameterValues, environment: ConnectorEnvironment, scope?: ConnectionScope): Connector {
  const definition = findConnector(id);
  if (!definition) {
    throw new ConnectorError("INVALID_PARAMETERS", `Unknown connector "${id}". Known connectors: ${DEFINITIONS.map((d) => d.id).join(", ")}.`);
  }
  return definition.create(values, environment, scope);
}
