import { fetchWorker } from "./worker";

/**
 * The OpenAPI document the Worker serves, read once per test file (lazily) and turned into the
 * route table every conformance check walks. Nothing here names a route: a route that is mounted
 * is in the document, so it is in every table built from it.
 */
export type JsonSchema = { [keyword: string]: any } | boolean;

export const HTTP_METHODS = ["GET", "PUT", "POST", "DELETE", "PATCH"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface HeaderDoc {
  required?: boolean;
  schema?: JsonSchema;
}

export interface ResponseDoc {
  description?: string;
  headers?: Record<string, HeaderDoc>;
  content?: Record<string, { schema?: JsonSchema }>;
  "x-error-codes"?: string[];
  /** On OAuth-style error responses ({error, error_description}): the OAuth `error` each errorCode is answered with. */
  "x-oauth-errors"?: Record<string, string>;
}

export interface ParameterDoc {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema: JsonSchema;
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, JsonSchema>; [section: string]: any };
  [key: string]: any;
}

export interface Operation {
  /** "GET /api/users/{id}": how every message names the operation. */
  key: string;
  method: HttpMethod;
  template: string;
  /** Names of the path parameters, in path order. */
  pathParams: string[];
  parameters: ParameterDoc[];
  /** `x-access`: public, authenticated, supervisor, accountAdmin or a privilege. */
  access: string;
  /** `x-object-permission`, e.g. "source:READ". */
  objectPermission?: string;
  /** `x-stability`: experimental, preview or deprecated. */
  stability?: string;
  deprecated: boolean;
  /** The request body's schema (the same under every documented media type), if it takes one. */
  requestBody?: { required: boolean; mediaTypes: string[]; schema: JsonSchema };
  responses: Record<string, ResponseDoc>;
  /** The operation object exactly as the document has it. */
  raw: any;
}

export const DOCUMENT_PATH = "/api/openapi.json";

const loading = new Map<string, Promise<OpenApiDocument>>();

/**
 * The served document, fetched straight from the Worker (not through `call`, which validates
 * against it). Behind a context path it is the document that Worker serves there, whose paths
 * carry the prefix (`/composer/api/accounts`), so operations are found by the request's own path.
 */
export function loadDocument(contextPath = ""): Promise<OpenApiDocument> {
  let document = loading.get(contextPath);
  if (!document) {
    const path = `${contextPath}${DOCUMENT_PATH}`;
    document = (async () => {
      const response = await fetchWorker(new Request(`http://api.test${path}`), contextPath);
      const text = await response.text();
      if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${text.slice(0, 500)}`);
      return JSON.parse(text) as OpenApiDocument;
    })();
    loading.set(contextPath, document);
  }
  return document;
}

/** Resolves a local JSON pointer such as `#/components/schemas/Account`. */
export function resolvePointer(doc: unknown, ref: string): any {
  if (!ref.startsWith("#/")) throw new Error(`only local $refs are supported, not ${ref}`);
  let node: any = doc;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object" || !(key in node)) throw new Error(`$ref ${ref} does not resolve`);
    node = node[key];
  }
  return node;
}

/** Follows `$ref` chains until a schema that is not a bare reference. */
export function deref(doc: OpenApiDocument, schema: JsonSchema): JsonSchema {
  let current = schema;
  for (let hops = 0; typeof current === "object" && typeof current.$ref === "string"; hops++) {
    if (hops > 32) throw new Error(`$ref cycle at ${current.$ref}`);
    current = resolvePointer(doc, current.$ref);
  }
  return current;
}

export function listOperations(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [lower, raw] of Object.entries(item)) {
      const method = lower.toUpperCase() as HttpMethod;
      if (!HTTP_METHODS.includes(method)) continue;
      const parameters = [...(item.parameters ?? []), ...(raw.parameters ?? [])].map((p: any) => (p.$ref ? resolvePointer(doc, p.$ref) : p) as ParameterDoc);
      let requestBody: Operation["requestBody"];
      if (raw.requestBody) {
        const body = raw.requestBody.$ref ? resolvePointer(doc, raw.requestBody.$ref) : raw.requestBody;
        const mediaTypes = Object.keys(body.content ?? {});
        requestBody = { required: body.required === true, mediaTypes, schema: body.content[mediaTypes[0]!]?.schema ?? {} };
      }
      operations.push({
        key: `${method} ${template}`,
        method,
        template,
        pathParams: [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
        parameters,
        access: raw["x-access"],
        objectPermission: raw["x-object-permission"],
        stability: raw["x-stability"],
        deprecated: raw.deprecated === true,
        requestBody,
        responses: raw.responses ?? {},
        raw,
      });
    }
  }
  return operations.sort((a, b) => a.key.localeCompare(b.key));
}

interface CompiledTemplate {
  regex: RegExp;
  literalSegments: number;
}
const compiledTemplates = new Map<string, CompiledTemplate>();

function compileTemplate(template: string): CompiledTemplate {
  let compiled = compiledTemplates.get(template);
  if (!compiled) {
    const segments = template.split("/").filter(Boolean);
    const pattern = segments.map((s) => (/^\{[^}]+\}$/.test(s) ? "[^/]+" : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/");
    compiled = { regex: new RegExp(`^/${pattern}$`), literalSegments: segments.filter((s) => !s.startsWith("{")).length };
    compiledTemplates.set(template, compiled);
  }
  return compiled;
}

/** True when the (raw, still percent-encoded) pathname is an instance of the template. */
export function templateMatches(template: string, pathname: string): boolean {
  return compileTemplate(template).regex.test(pathname);
}

/**
 * The documented operation a request reaches: same method, a template the path fits, and of
 * several (`/api/accounts/name/{name}` and `/api/accounts/{id}`) the one with the most literal segments.
 */
export function findOperation(operations: readonly Operation[], method: string, pathname: string): Operation | undefined {
  let best: Operation | undefined;
  for (const op of operations) {
    if (op.method !== method || !templateMatches(op.template, pathname)) continue;
    if (!best || compileTemplate(op.template).literalSegments > compileTemplate(best.template).literalSegments) best = op;
  }
  return best;
}

/** Fills a template's parameters (percent-encoded). */
export function fillTemplate(template: string, params: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for path parameter {${name}} of ${template}`);
    return encodeURIComponent(value);
  });
}

/** Fills a template with values that are already encoded exactly as they should go on the wire. */
export function fillTemplateRaw(template: string, params: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for path parameter {${name}} of ${template}`);
    return value;
  });
}
