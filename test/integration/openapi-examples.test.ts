import { getExampleFromSchema } from "@scalar/workspace-store/request-example";
import { describe, expect, it } from "vitest";
import { SUPERVISOR_TENANT_PRIVILEGES, type Privilege } from "../../src/domain/privileges";
import { type Credentials, call, createUser, DEFAULT_ACCOUNT_ID, VENDOR_JSON } from "./helpers";
import { deref, loadDocument, type JsonSchema, type OpenApiDocument } from "./harness/document";

/**
 * The request examples of the OpenAPI document, as the API reference page prefills them: each is
 * sent unchanged, in document order, on this suite's fresh database, and must succeed. An example
 * is the request body's `example` (or each of its `examples`), or its schema's `example`; the
 * request carries the example of each required header parameter (X-Enable-Preview: true).
 *
 * Each is sent by a caller its `x-access` admits: the supervisor, unless the operation is for users
 * of an account (`accountMember`) or needs a privilege the supervisor lacks (then an administrator
 * of the default account, made first); the token endpoints (`trustedClient`) by a trusted-access
 * client made first. No example names an object the fresh database lacks, except those of
 * PREREQUISITES (below) and that of the pull-token endpoint, which names the user the push-token
 * example (sent before it) makes, since a pull token is only issued for an existing user.
 *
 * An operation on an object named in the path (PUT /api/groups/{id}) is sent to its parameters'
 * examples: a fresh database has no such object, so 404 is its success here. The body is validated
 * before the object is looked up, so a 404 still proves the example is a valid body.
 */
interface RequestExample {
  where: string;
  method: string;
  path: string;
  body: unknown;
  access: string;
  headers: Record<string, string>;
  /** The path names an object (its parameters are filled with their examples), which a fresh database lacks. */
  namesObject: boolean;
}

function requestExamples(doc: OpenApiDocument): RequestExample[] {
  const found: RequestExample[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item as Record<string, any>)) {
      const content = op?.requestBody?.content?.[VENDOR_JSON];
      if (!content) continue;
      const schema = deref(doc, content.schema as JsonSchema) as Record<string, unknown>;
      const explicit = [content.example, ...Object.values((content.examples ?? {}) as Record<string, { value: unknown }>).map((e) => e.value), schema?.example].filter((b) => b !== undefined);
      // Without one, the page generates it from the schema, as this does (the page's own generator).
      const bodies = explicit.length > 0 ? explicit : path.includes("{") ? [] : [getExampleFromSchema(inline(doc, content.schema) as never, { mode: "write" })];
      const parameters = [...((item as { parameters?: unknown[] }).parameters ?? []), ...(op.parameters ?? [])]
        .map((parameter) => deref(doc, parameter as JsonSchema) as { in: string; name: string; required?: boolean; example?: unknown; schema?: { example?: unknown } })
        .filter((parameter) => (parameter.in === "header" && parameter.required) || parameter.in === "path");
      const headers = Object.fromEntries(parameters.filter((p) => p.in === "header").map((p) => [p.name, String(p.example ?? p.schema?.example)]));
      const url = parameters.filter((p) => p.in === "path").reduce((url, p) => url.replace(`{${p.name}}`, encodeURIComponent(String(p.example ?? p.schema?.example ?? "example"))), path);
      for (const body of bodies) found.push({ where: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path: url, body, access: op["x-access"], headers, namesObject: path.includes("{") });
    }
  }
  return found;
}

/** The schema with every $ref replaced by what it names (the generator is given no document). */
function inline(doc: OpenApiDocument, schema: JsonSchema, depth = 0): unknown {
  if (depth > 12 || schema === null || typeof schema !== "object") return schema;
  if (Array.isArray(schema)) return schema.map((s) => inline(doc, s, depth + 1));
  const resolved = deref(doc, schema) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(resolved).map(([key, value]) => [key, inline(doc, value as JsonSchema, depth + 1)]));
}

/**
 * Objects an example names that a fresh database lacks, made (by the account administrator) just
 * before it is sent; each answers the body to send. The describe example names a connection by an
 * id a client may choose (PUT /api/connections/{id}) and a table of it, so it is sent unchanged. A
 * materialized view names its source by id, which only the service makes: its example's
 * `definition.sourceId` is replaced by the id of a source made first.
 */
type Prerequisite = (body: any, as: Credentials | undefined) => Promise<unknown>;

/** A JSON-datasets connection with the id a client chose, and a dataset (a table of its schema "datasets"). */
let customersTable: Promise<void> | undefined;
function makeCustomersTable(connectionId: string, table: string, as: Credentials | undefined) {
  customersTable ??= (async () => {
    const connection = await call("PUT", `/api/connections/${connectionId}`, { as, body: { name: "Sales warehouse", connectionTypeId: "json-datasets" } });
    expect(connection.status).toBe(201);
    const dataset = await call("POST", "/api/json-datasets", { as, body: { name: table, data: { rows: [{ name: "Acme", region: "EMEA" }] } } });
    expect(dataset.status).toBe(201);
  })();
  return customersTable;
}

const PREREQUISITES: Record<string, Prerequisite> = {
  "POST /api/sources/data-entities/describe": async (body, as) => {
    await makeCustomersTable(body.connectionId, body.table, as);
    return body;
  },
  "POST /api/materialized-views": async (body, as) => {
    await makeCustomersTable("sales-warehouse", "customers", as);
    const singleCollection = { connectionId: "sales-warehouse", schema: "datasets", collection: "customers" };
    const source = await call("POST", "/api/sources", {
      as,
      body: { name: "Customers of the materialized view example", storage: { dataEntities: [{ type: "SINGLE_COLLECTION", singleCollection }] } },
    });
    expect(source.status).toBe(201);
    return { ...body, definition: { ...body.definition, sourceId: source.json.id } };
  },
};

/** A caller the operation's access admits (see above). */
async function callers(): Promise<(access: string) => Credentials | undefined> {
  const admin = await createUser(DEFAULT_ACCOUNT_ID, { groups: ["Administrators"] });
  const client = await call("POST", "/api/trusted-access/clients", {
    body: { client_name: "openapi-examples", access_token_validity_seconds: 600, account_ids: [DEFAULT_ACCOUNT_ID] },
  });
  expect(client.status).toBe(201);
  return (access) => {
    if (access === "trustedClient") return { username: client.json.client_id, password: client.json.client_secret };
    const supervisorMay = access === "supervisor" || access === "accountAdmin" || access === "authenticated" || SUPERVISOR_TENANT_PRIVILEGES.includes(access as Privilege);
    return supervisorMay ? undefined : { username: admin.username, password: admin.password };
  };
}

describe("the document's request examples", () => {
  it("each succeeds when sent unchanged", async () => {
    const examples = requestExamples(await loadDocument());
    expect(examples.map((e) => e.where)).toContain("POST /api/accounts");
    const callerFor = await callers();
    const failures: string[] = [];
    for (const example of examples) {
      const as = callerFor(example.access);
      const body = PREREQUISITES[example.where] ? await PREREQUISITES[example.where](example.body, as) : example.body;
      const res = await call(example.method, example.path, { body, headers: example.headers, as, unchecked: true });
      const succeeded = res.status < 300 || (example.namesObject && res.status === 404 && res.json?.errorCode === "NOT_FOUND");
      if (!succeeded) failures.push(`${example.where} ${JSON.stringify(body)}: ${res.status} ${res.text.slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
  });
});
