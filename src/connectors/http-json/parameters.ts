/** The parameters of the HTTP JSON connector, and the request they describe. */
import { checkParameters, type ParameterDescriptor, type ParameterProblem, type ParameterValues } from "../../domain/connectors/parameters";
import type { ConnectorEnvironment } from "../connector";
import { throwIfInvalid } from "../connector-error";
import { checkUrlHost } from "./fetch-records";

export const HEADER_PREFIX = "header.";
export const SECRET_HEADER_PREFIX = "secretHeader.";
export const DEFAULT_TABLE_NAME = "records";
/** The connector's only schema. */
export const SCHEMA_NAME = "default";

export const HTTP_JSON_PARAMETERS: readonly ParameterDescriptor[] = [
  { key: "url", label: "URL", valueType: "URL", required: true, secret: false, helper: "An http(s) address that answers GET with a JSON array of objects." },
  {
    key: "authorization",
    label: "Authorization header",
    valueType: "PASSWORD",
    required: false,
    secret: true,
    helper: 'The whole value of the Authorization header, e.g. "Bearer abc123".',
  },
  {
    key: HEADER_PREFIX,
    prefix: true,
    label: "Header",
    valueType: "STRING",
    required: false,
    secret: false,
    helper: 'One parameter per extra request header: key "header.X-Api-Version", value "2".',
  },
  {
    key: SECRET_HEADER_PREFIX,
    prefix: true,
    label: "Secret header",
    valueType: "PASSWORD",
    required: false,
    secret: true,
    helper: 'Like header., for values that are secrets: key "secretHeader.X-Api-Key".',
  },
  { key: "tableName", label: "Table name", valueType: "STRING", required: false, secret: false, defaultValue: DEFAULT_TABLE_NAME },
];

// Headers that frame or route the request: set by the runtime, never by a connection.
const RESERVED_HEADERS = new Set(["host", "content-length", "transfer-encoding", "connection", "upgrade", "te", "trailer", "keep-alive", "cookie"]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface HttpJsonRequest {
  url: URL;
  headers: Headers;
  tableName: string;
}

export function httpJsonProblems(values: ParameterValues): ParameterProblem[] {
  const { values: checked, problems } = checkParameters(HTTP_JSON_PARAMETERS, values);
  if (checked.url !== undefined) {
    const url = new URL(checked.url);
    if (url.username || url.password) {
      problems.push({ key: "url", message: "The URL must not contain a user name or password; use the Authorization header parameter." });
    }
  }
  for (const key of Object.keys(checked)) {
    const name = headerName(key);
    if (name === undefined) continue;
    if (!HEADER_NAME.test(name)) problems.push({ key, message: `"${name}" is not a valid header name.` });
    else if (RESERVED_HEADERS.has(name.toLowerCase()) || name.toLowerCase().startsWith("proxy-")) {
      problems.push({ key, message: `The ${name} header cannot be set by a connection.` });
    }
    if (/[\r\n\0]/.test(checked[key])) problems.push({ key, message: `The value of header ${name} must be on one line.` });
  }
  return problems;
}

/** The host policy as a parameter problem, so that a connection to a host this service may not reach is refused before it is stored. */
export function httpJsonHostProblems(values: ParameterValues, environment: ConnectorEnvironment): ParameterProblem[] {
  const { values: checked, problems } = checkParameters(HTTP_JSON_PARAMETERS, values);
  if (checked.url === undefined || problems.some((p) => p.key === "url")) return [];
  const verdict = checkUrlHost(new URL(checked.url), environment);
  return verdict.allowed ? [] : [{ key: "url", message: verdict.reason }];
}

/** Throws INVALID_PARAMETERS. */
export function httpJsonRequest(values: ParameterValues): HttpJsonRequest {
  throwIfInvalid(httpJsonProblems(values));
  const { values: checked } = checkParameters(HTTP_JSON_PARAMETERS, values);
  const headers = new Headers({ accept: "application/json" });
  for (const [key, value] of Object.entries(checked)) {
    const name = headerName(key);
    if (name !== undefined) headers.set(name, value);
  }
  if (checked.authorization !== undefined) headers.set("authorization", checked.authorization);
  return { url: new URL(checked.url), headers, tableName: checked.tableName };
}

function headerName(key: string): string | undefined {
  if (key.startsWith(HEADER_PREFIX)) return key.slice(HEADER_PREFIX.length);
  if (key.startsWith(SECRET_HEADER_PREFIX)) return key.slice(SECRET_HEADER_PREFIX.length);
  return undefined;
}
