/**
 * The parameters a connector takes, described as data so that connection types can be
 * generated from them, and the generic checks every connector's parameters get
 * (required, type, allowed values). Connector-specific rules live with each connector.
 */

export type ParameterValueType = "STRING" | "INTEGER" | "BOOLEAN" | "PASSWORD" | "URL";

export interface ParameterDescriptor {
  /** The parameter's key. With `prefix: true`, any key that starts with it (e.g. "header."). */
  key: string;
  label: string;
  valueType: ParameterValueType;
  required: boolean;
  /** Secret values are never shown back or put into a message. */
  secret: boolean;
  /** When set, the only values accepted. */
  allowedValues?: readonly string[];
  /** Used when the parameter is absent or empty. */
  defaultValue?: string;
  /** One sentence for the person filling in the form. */
  helper?: string;
  prefix?: boolean;
  /** Set on a parameter that still works but should no longer be used: says what to use instead. A connection that sets it gets a WARNING. */
  deprecated?: string;
}

/** A connection's parameters: keys to string values, secret ones included. */
export type ParameterValues = Readonly<Record<string, string>>;

export interface ParameterProblem {
  key: string;
  message: string;
}

/**
 * Checks values against descriptors and returns the values with defaults filled in.
 * Keys no descriptor mentions are ignored (connections may carry system parameters).
 */
export function checkParameters(
  descriptors: readonly ParameterDescriptor[],
  values: ParameterValues,
): { values: Record<string, string>; problems: ParameterProblem[] } {
  const problems: ParameterProblem[] = [];
  const result: Record<string, string> = {};
  for (const descriptor of descriptors) {
    const keys = descriptor.prefix ? Object.keys(values).filter((key) => key.startsWith(descriptor.key) && key.length > descriptor.key.length) : [descriptor.key];
    for (const key of keys) {
      const given = Object.hasOwn(values, key) ? values[key].trim() : "";
      // Secrets are kept exactly as typed: a password may start or end with a space.
      const value = given === "" ? (descriptor.defaultValue ?? "") : descriptor.secret ? values[key] : given;
      if (value === "") {
        if (descriptor.required) problems.push({ key, message: `${descriptor.label} is required.` });
        continue;
      }
      const problem = valueProblem(descriptor, value);
      if (problem) problems.push({ key, message: problem });
      else result[key] = value;
    }
  }
  return { values: result, problems };
}

// Messages never repeat a secret value.
function valueProblem(descriptor: ParameterDescriptor, value: string): string | undefined {
  const { label } = descriptor;
  if (descriptor.allowedValues && !descriptor.allowedValues.includes(value)) {
    return `${label} must be one of: ${descriptor.allowedValues.join(", ")}.`;
  }
  switch (descriptor.valueType) {
    case "INTEGER":
      return /^-?\d{1,15}$/.test(value) ? undefined : `${label} must be a whole number.`;
    case "BOOLEAN":
      return value === "true" || value === "false" ? undefined : `${label} must be true or false.`;
    case "URL":
      return isHttpUrl(value) ? undefined : `${label} must be an absolute http:// or https:// URL.`;
    default:
      return undefined;
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** The values of every secret parameter that is set, so that messages can be scrubbed of them. */
export function secretValues(descriptors: readonly ParameterDescriptor[], values: ParameterValues): string[] {
  return Object.entries(values)
    .filter(([key]) => descriptors.some((d) => d.secret && (d.prefix ? key.startsWith(d.key) : key === d.key)))
    .map(([, value]) => value)
    .filter((value) => value !== "");
}

/** Replaces every occurrence of a secret in a message, longest secrets first. */
export function redactSecrets(message: string, secrets: readonly string[]): string {
  return [...secrets]
    .filter((secret) => secret.length > 0)
    .sort((a, b) => b.length - a.length)
    .reduce((text, secret) => text.split(secret).join("***"), message);
}
