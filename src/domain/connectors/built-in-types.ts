/**
 * The connection types an installation starts with: one per connector, generated from the
 * connector's own description (label, parameter descriptors, storage type). The migration that
 * creates connection_types inserts exactly these rows; a test compares them, so a connector whose
 * descriptors change (or a new connector) shows up as a difference to add in a migration.
 */
import type { TypeParameter } from "./connection-parameters";
import type { ParameterDescriptor } from "./parameters";

/** What a connector says about itself (the part of connectors' ConnectorDefinition used here). */
export interface ConnectorDescription {
  id: string;
  label: string;
  description: string;
  parameters: readonly ParameterDescriptor[];
  storageType?: { type: string; subStorageType: string };
}

export interface BuiltInConnectionType {
  /** The connector's id: built-in types are named after their connectors ("postgresql"). */
  id: string;
  connectorId: string;
  name: string;
  description: string;
  type: string;
  subStorageType: string;
  parameters: TypeParameter[];
}

export function builtInConnectionType(connector: ConnectorDescription): BuiltInConnectionType {
  const { type, subStorageType } = storageTypeOf(connector);
  return {
    id: connector.id,
    connectorId: connector.id,
    name: connector.label,
    description: connector.description,
    type,
    subStorageType,
    parameters: typeParametersOf(connector.parameters),
  };
}

/** `type` / `subStorageType` of a connector's types: its own, else its id in upper case ("http-json": HTTP_JSON). */
export function storageTypeOf(connector: Pick<ConnectorDescription, "id" | "storageType">): { type: string; subStorageType: string } {
  const fallback = connector.id.toUpperCase().replace(/[^A-Z0-9]+/g, "_");
  return connector.storageType ?? { type: fallback, subStorageType: fallback };
}

/**
 * A connector's parameter descriptors as a type declares them. A family of keys (`prefix`) keeps
 * its key ("header."); deprecated parameters are hidden from forms; changing a required or a
 * secret one (the connection's address and credentials) calls for a new validation.
 */
export function typeParametersOf(descriptors: readonly ParameterDescriptor[]): TypeParameter[] {
  return descriptors.map((d, index) => ({
    key: d.key,
    label: d.label,
    valueType: d.valueType,
    required: d.required,
    values: [...(d.allowedValues ?? [])],
    visible: d.deprecated === undefined,
    sequenceNumber: index,
    helper: d.helper ?? d.deprecated ?? null,
    userAttribute: false,
    requireValidation: d.required || d.secret,
  }));
}
