import fc from "fast-check";
import { deref, type JsonSchema, type OpenApiDocument } from "./document";
import { intendedPattern } from "./schemas";

/**
 * fast-check arbitraries of values VALID against a JSON schema of the document, for the subset
 * of JSON Schema the document uses: $ref, type (with type arrays, i.e. nullable), enum, const,
 * anyOf/oneOf, allOf, properties/required/additionalProperties, minLength/maxLength, pattern,
 * format (email, date-time, date, uuid, uri), minimum/maximum (and exclusive), minItems/maxItems,
 * default. Any other validation keyword throws, naming it: a schema the generator cannot honour
 * must fail loudly, not produce "valid" values that are not.
 */
export interface ArbitraryOptions {
  doc: OpenApiDocument;
  /**
   * Replaces the arbitrary of an object member by name (e.g. `accountId` filled with a real
   * fixture id most of the time). `path` is the member's dotted path from the root.
   */
  member?: (name: string, schema: JsonSchema, path: string) => fc.Arbitrary<unknown> | undefined;
  /** Longest string generated where the schema allows longer (keeps requests small and fast). */
  maxStringLength?: number;
  /** Most array items generated where the schema allows more. */
  maxItems?: number;
}

/** Keywords that only annotate: the generator may ignore them. */
const ANNOTATIONS = new Set([
  "$ref", "$schema", "$id", "$comment", "title", "description", "default", "example", "examples", "readOnly", "writeOnly", "deprecated",
  "type", "enum", "const", "anyOf", "oneOf", "allOf", "properties", "required", "additionalProperties", "items",
  "minLength", "maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems",
  "discriminator", "xml", "externalDocs", "nullable",
]);

type Node = { [k: string]: any };

export function arbitraryFromSchema(schema: JsonSchema, options: ArbitraryOptions, path = "", depth = 0): fc.Arbitrary<unknown> {
  if (depth > 12) throw new Error(`arbitraryFromSchema: schema nests deeper than 12 levels at ${path || "(root)"}`);
  const resolved = deref(options.doc, schema);
  if (resolved === true) return fc.jsonValue({ maxDepth: 2 });
  if (resolved === false) throw new Error(`arbitraryFromSchema: nothing is valid at ${path || "(root)"} (false schema)`);
  const node = resolved as Node;
  for (const key of Object.keys(node)) {
    if (!ANNOTATIONS.has(key) && !key.startsWith("x-")) throw new Error(`arbitraryFromSchema does not support "${key}" (at ${path || "(root)"}); teach harness/arbitrary.ts`);
  }
  if (node.allOf) return arbitraryFromSchema(mergeAllOf(options.doc, node), options, path, depth + 1);
  const withDefault = (arb: fc.Arbitrary<unknown>) => ("default" in node ? fc.oneof(fc.constant(structuredClone(node.default)), arb) : arb);

  if ("const" in node) return fc.constant(node.const);
  if (Array.isArray(node.enum)) return fc.constantFrom(...node.enum.filter((v: unknown) => fitsType(node.type, v)));
  const branches = node.oneOf ?? node.anyOf;
  if (Array.isArray(branches)) {
    const own = { ...node, oneOf: undefined, anyOf: undefined };
    return withDefault(fc.oneof(...branches.map((b: JsonSchema) => arbitraryFromSchema(mergeSchemas(options.doc, own, b), options, path, depth + 1))));
  }

  const types: string[] = Array.isArray(node.type) ? node.type : node.type ? [node.type] : inferTypes(node);
  return withDefault(fc.oneof(...types.map((type) => arbitraryOfType(type, node, options, path, depth))));
}

function arbitraryOfType(type: string, node: Node, options: ArbitraryOptions, path: string, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.integer({
        min: Math.max(Number.MIN_SAFE_INTEGER, bound(node.minimum, node.exclusiveMinimum, 1) ?? -1_000_000),
        max: Math.min(Number.MAX_SAFE_INTEGER, bound(node.maximum, node.exclusiveMaximum, -1) ?? 1_000_000),
      });
    case "number":
      return fc.double({
        min: node.minimum ?? node.exclusiveMinimum ?? -1e9,
        max: node.maximum ?? node.exclusiveMaximum ?? 1e9,
        minExcluded: node.exclusiveMinimum !== undefined,
        maxExcluded: node.exclusiveMaximum !== undefined,
        noNaN: true,
        noDefaultInfinity: true,
      }).map((n) => (Object.is(n, -0) ? 0 : n));
    case "string":
      return stringArbitrary(node, options);
    case "array": {
      const minLength = node.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(node.maxItems ?? Infinity, options.maxItems ?? 4));
      return fc.array(arbitraryFromSchema(node.items ?? true, options, `${path}[]`, depth + 1), { minLength, maxLength });
    }
    case "object":
      return objectArbitrary(node, options, path, depth);
    default:
      throw new Error(`arbitraryFromSchema: unknown type "${type}" at ${path || "(root)"}`);
  }
}

function objectArbitrary(node: Node, options: ArbitraryOptions, path: string, depth: number): fc.Arbitrary<unknown> {
  const required: string[] = node.required ?? [];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, member] of Object.entries<JsonSchema>(node.properties ?? {})) {
    // A client does not send read-only members (the server ignores them anyway).
    const resolved = deref(options.doc, member);
    if (typeof resolved === "object" && resolved.readOnly === true && !required.includes(name)) continue;
    const memberPath = path ? `${path}.${name}` : name;
    model[name] = options.member?.(name, member, memberPath) ?? arbitraryFromSchema(member, options, memberPath, depth + 1);
  }
  const declared = fc.record(model, { requiredKeys: required.filter((k) => k in model) });
  const extra = node.additionalProperties;
  if (extra === undefined || extra === false || Object.keys(model).length > 0) return declared;
  // A map (`additionalProperties` is a schema and no member is declared): a few free keys.
  const value = arbitraryFromSchema(extra === true ? true : extra, options, `${path}.*`, depth + 1);
  return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !/[\u0000-\u001F]/.test(k)), value, { maxKeys: 3 });
}

function stringArbitrary(node: Node, options: ArbitraryOptions): fc.Arbitrary<string> {
  const minLength = node.minLength ?? 0;
  const cap = Math.max(minLength, Math.min(node.maxLength ?? Infinity, options.maxStringLength ?? 40));
  const fits = (s: string) => {
    const length = [...s].length; // JSON Schema counts code points
    return length >= minLength && length <= (node.maxLength ?? Infinity);
  };
  let arb: fc.Arbitrary<string>;
  switch (node.format) {
    case "email":
      arb = fc.emailAddress();
      break;
    case "date-time":
      arb = fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString());
      break;
    case "date":
      arb = fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
      break;
    case "uuid":
      arb = fc.uuid();
      break;
    case "uri":
      arb = fc.webUrl();
      break;
    case undefined:
      arb = node.pattern
        ? fc.stringMatching(new RegExp(intendedPattern(node.pattern), "u"))
        : fc.string({ unit: "grapheme", minLength, maxLength: cap });
      break;
    default:
      throw new Error(`arbitraryFromSchema does not support format "${node.format}"; teach harness/arbitrary.ts`);
  }
  if (node.pattern && node.format) {
    const pattern = new RegExp(intendedPattern(node.pattern), "u");
    arb = arb.filter((s) => pattern.test(s));
  }
  // Patterns and formats do not bound the length: keep what fits (a pattern like ^[^:]+$ mostly does).
  return node.pattern || node.format ? arb.filter(fits) : arb;
}

const bound = (inclusive: number | undefined, exclusive: number | undefined, step: number) =>
  inclusive ?? (exclusive === undefined ? undefined : exclusive + step);

function fitsType(type: string | string[] | undefined, value: unknown): boolean {
  if (type === undefined) return true;
  const types = Array.isArray(type) ? type : [type];
  const actual = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  return types.some((t) => t === actual || (t === "integer" && Number.isInteger(value)) || (t === "number" && typeof value === "number"));
}

/** Types a schema without `type` implies by its keywords (`{}` allows anything). */
function inferTypes(node: Node): string[] {
  if (node.properties || node.additionalProperties !== undefined || node.required) return ["object"];
  if (node.items || node.minItems !== undefined || node.maxItems !== undefined) return ["array"];
  if (node.pattern || node.format || node.minLength !== undefined || node.maxLength !== undefined) return ["string"];
  if (node.minimum !== undefined || node.maximum !== undefined) return ["number"];
  return ["null", "boolean", "integer", "string", "object", "array"];
}

/** allOf as one schema: keywords combined, the narrower bound and the intersection of enums and types. */
export function mergeAllOf(doc: OpenApiDocument, node: Node): Node {
  const { allOf, ...own } = node;
  return (allOf as JsonSchema[]).reduce<Node>((merged, part) => mergeSchemas(doc, merged, part), own);
}

export function mergeSchemas(doc: OpenApiDocument, a: Node, bSchema: JsonSchema): Node {
  let b = deref(doc, bSchema) as Node;
  if (b.allOf) b = mergeAllOf(doc, b);
  const out: Node = { ...a };
  for (const [key, value] of Object.entries(b)) {
    if (value === undefined) continue;
    if (!(key in out) || out[key] === undefined) {
      out[key] = value;
      continue;
    }
    switch (key) {
      case "properties":
        out.properties = { ...out.properties, ...value };
        break;
      case "required":
        out.required = [...new Set([...out.required, ...value])];
        break;
      case "enum":
        out.enum = out.enum.filter((v: unknown) => value.some((w: unknown) => JSON.stringify(w) === JSON.stringify(v)));
        break;
      case "type": {
        const left: string[] = Array.isArray(out.type) ? out.type : [out.type];
        const right: string[] = Array.isArray(value) ? value : [value];
        out.type = left.filter((t) => right.includes(t) || (t === "integer" && right.includes("number")));
        break;
      }
      case "minimum":
      case "minLength":
      case "minItems":
        out[key] = Math.max(out[key], value);
        break;
      case "maximum":
      case "maxLength":
      case "maxItems":
        out[key] = Math.min(out[key], value);
        break;
      default:
        if (JSON.stringify(out[key]) !== JSON.stringify(value) && !["description", "example", "default", "title"].includes(key)) {
          throw new Error(`arbitraryFromSchema cannot merge two different "${key}" in allOf; teach harness/arbitrary.ts`);
        }
    }
  }
  return out;
}
