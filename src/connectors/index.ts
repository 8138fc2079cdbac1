/** The connector layer's public surface; see README.md in this folder. */
export type {
  ColumnDescription,
  ConnectionScope,
  ConnectionTestResult,
  Connector,
  ConnectorDefinition,
  ConnectorEnvironment,
  ConnectorTimeouts,
  ParameterDescriptor,
  ParameterProblem,
  ParameterValues,
  PreviewResult,
  TableDescription,
} from "./connector";
export { ConnectorError, suggestedHttpStatus, type ConnectorErrorKind } from "./connector-error";
export { connectorEnvironment } from "./environment";
export { createConnector, findConnector, listConnectors } from "./registry";
