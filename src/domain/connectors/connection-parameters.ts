/**
 * A connection's parameters against its connection type. The type declares the keys a connection
 * takes (required, valueType, allowed values); its connector knows what the type cannot say (which
 * keys are secret, which settings are deprecated). Findings are ERRORs (a required key missing, a
 * value of the wrong type or outside the allowed values) or WARNINGs (a key the type does not
 * declare, a deprecated setting); the routes answer them as Problems. Messages never repeat a value.
 */
import { checkParameters, type ParameterDescriptor, type ParameterValueType, type ParameterValues } from "./parameters";

export const PARAMETER_VALUE_TYPES = ["STRING", "INTEGER", "BOOLEAN", "PASSWORD", "URL"] as const satisfies readonly ParameterValueType[];

/** One key a connection of a type takes, as the type declares it. */
export interface TypeParameter {
  /** A key ending in "." declares a family of keys: "header." takes "header.X-Api-Version". */
  key: string;
  label: string;
  valueType: ParameterValueType;
  required: boolean;
  /** When not empty, the only values accepted. */
  values: string[];
  visible: boolean;
  sequenceNumber: number;
  helper: string | null;
  userAttribute: boolean;
  requireValidation: boolean;
}

export interface ParameterFinding {
  key: string;
  level: "ERROR" | "WARNING";
  message: string;
}

export const isFamilyKey = (key: string): boolean => key.endsWith(".");

function covers(declared: string, family: boolean, key: string): boolean {
  return family ? key.startsWith(declared) && key.length > declared.length : key === declared;
}

/** The type's declaration of a connection's key: its own entry, else the family it belongs to. */
export function typeParameterOf(parameters: readonly TypeParameter[], key: string): TypeParameter | undefined {
  return parameters.find((p) => !isFamilyKey(p.key) && p.key === key) ?? parameters.find((p) => isFamilyKey(p.key) && covers(p.key, true, key));
}

/** The connector's descriptor of a connection's key. */
export function descriptorOf(descriptors: readonly ParameterDescriptor[], key: string): ParameterDescriptor | undefined {
  return descriptors.find((d) => covers(d.key, d.prefix === true, key));
}

/** Secret values are write-only: PASSWORD in the type, or secret for the connector. */
export function isSecretKey(key: string, parameters: readonly TypeParameter[], descriptors: readonly ParameterDescriptor[]): boolean {
  return typeParameterOf(parameters, key)?.valueType === "PASSWORD" || descriptorOf(descriptors, key)?.secret === true;
}

/** Every finding about `values` (the connection's keys and values, secrets included) under the type. */
export function checkConnectionParameters(
  parameters: readonly TypeParameter[],
  descriptors: readonly ParameterDescriptor[],
  values: ParameterValues,
): ParameterFinding[] {
  const declared: ParameterDescriptor[] = parameters.map((p) => {
    const own = descriptors.find((d) => d.key === p.key);
    return {
      key: p.key,
      label: p.label,
      valueType: p.valueType,
      required: p.required,
      secret: p.valueType === "PASSWORD" || own?.secret === true,
      allowedValues: p.values.length > 0 ? p.values : undefined,
      defaultValue: own?.defaultValue,
      prefix: isFamilyKey(p.key),
    };
  });
  const findings: ParameterFinding[] = checkParameters(declared, values).problems.map((p) => ({ ...p, level: "ERROR" }));
  for (const key of Object.keys(values)) {
    if (!typeParameterOf(parameters, key)) {
      findings.push({ key, level: "WARNING", message: `"${key}" is not a parameter of this connection type; no connector reads it.` });
    }
    const deprecated = descriptorOf(descriptors, key)?.deprecated;
    if (deprecated && values[key].trim() !== "") findings.push({ key, level: "WARNING", message: `"${key}" is deprecated. ${deprecated}` });
  }
  return findings;
}

export interface TypeCandidate {
  id: string;
  parameters: readonly TypeParameter[];
}

/**
 * Matching by type and parameters: of the candidates (the types with the connection's type and
 * subStorageType), those whose required keys are all among `givenKeys` and which declare every
 * given key; the narrowest (fewest parameters) first, then by id.
 */
export function typesTakingParameters<T extends TypeCandidate>(candidates: readonly T[], givenKeys: readonly string[]): T[] {
  const given = new Set(givenKeys);
  return candidates
    .filter((c) => c.parameters.every((p) => !p.required || isFamilyKey(p.key) || given.has(p.key)) && givenKeys.every((key) => typeParameterOf(c.parameters, key)))
    .sort((a, b) => a.parameters.length - b.parameters.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
