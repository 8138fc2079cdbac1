/**
 * What every connector offers. A connector is made from one connection's parameters and
 * the service's environment, and talks to one data store. Each connector lives in its own
 * folder (postgres/, http-json/) and is listed in registry.ts; nothing else knows it.
 */
import type { Database } from "../db/client";
import type { HostPolicy } from "../domain/connectors/host-policy";
import type { ParameterDescriptor, ParameterProblem, ParameterValues } from "../domain/connectors/parameters";

export type { ParameterDescriptor, ParameterProblem, ParameterValues };

/** The answer of test(), shaped like the API's ConnectionValidationResult. */
export interface ConnectionTestResult {
  connected: boolean;
  /** What happened, for a person: "Connected to PostgreSQL 18.4 as reader." */
  message: string;
  /** Set when the connection works but something deserves attention (no TLS, superuser, ...). */
  warning?: string;
}

export interface ColumnDescription {
  name: string;
  /** The data store's own type name: "numeric(12,2)", "timestamp with time zone", "INTEGER". */
  nativeType: string;
  nullable: boolean;
}

export interface TableDescription {
  name: string;
  kind: "TABLE" | "VIEW";
  columns: ColumnDescription[];
}

export interface PreviewResult {
  columns: ColumnDescription[];
  /** One array per row, values in the order of `columns`, as JSON values. */
  rows: unknown[][];
}

export interface Connector {
  /** Never throws: every failure is `connected: false` with a message. */
  test(): Promise<ConnectionTestResult>;
  /** Throws ConnectorError. */
  listSchemas(): Promise<string[]>;
  /** Tables and views of one schema, with their columns. Throws ConnectorError (NOT_FOUND for an unknown schema). */
  describeSchema(schema: string): Promise<TableDescription[]>;
  /** The first rows of a table: `limit` defaults to 100 and is capped at 1000. Throws ConnectorError. */
  preview(schema: string, table: string, limit?: number): Promise<PreviewResult>;
}

export interface ConnectorTimeouts {
  /** Opening the connection: TCP, TLS and login for a database; the response headers for HTTP. */
  connectMs: number;
  /** One operation once connected: a statement, or reading an HTTP body. */
  operationMs: number;
}

/** What the service, not the connection, decides. Built from the Worker's vars by environment.ts. */
export interface ConnectorEnvironment {
  hostPolicy: HostPolicy;
  timeouts: ConnectorTimeouts;
  /** Largest answer a connector reads (HTTP bodies). */
  maxResponseBytes: number;
  /** Hyperdrive bindings connections may use, by binding name (only those the operator listed). */
  hyperdrives: Readonly<Record<string, Hyperdrive>>;
}

/**
 * Whose connection a connector serves: the account it belongs to, and this service's own database,
 * for connectors that read the account's data kept here (JSON datasets). Remote stores ignore it.
 */
export interface ConnectionScope {
  accountId: string;
  database: Database;
}

/** A kind of data store: how to describe its parameters and how to make a connector for it. */
export interface ConnectorDefinition {
  /** Stable id, used as a connection type's connectorId: "postgresql", "http-json". */
  id: string;
  label: string;
  description: string;
  parameters: readonly ParameterDescriptor[];
  /** What a connection of this connector can do, shown as the connection's `features` (all ENABLED). */
  features?: readonly string[];
  /** The connection type's `type` and `subStorageType`; by default the id in upper case. */
  storageType?: { type: string; subStorageType: string };
  /** True for a store this service manages itself (a connection to it is `internal`). */
  internal?: boolean;
  /** Every problem of these parameters, without connecting (generic and connector-specific checks, the host policy). */
  checkParameters(values: ParameterValues, environment: ConnectorEnvironment): ParameterProblem[];
  /** Never throws; invalid parameters surface when the connector is used. */
  create(values: ParameterValues, environment: ConnectorEnvironment, scope?: ConnectionScope): Connector;
}
