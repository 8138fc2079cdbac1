import { beforeAll, describe, expect, it } from "vitest";
import { call, VENDOR_JSON, type CallResult, type Credentials } from "./helpers";
import { allowedCaller } from "./harness/access";
import { loadContract, type Contract } from "./harness/contract";
import { deref, fillTemplate, templateMatches, type Operation } from "./harness/document";
import { createWorld, FIXTURES, type World } from "./harness/fixtures";
import { errorCodesOfAnswer } from "./harness/response-validation";

/**
 * Stateful sequences, generated: every collection with a documented POST that answers 201 and
 * an item path with GET, PUT or PATCH, and DELETE goes through create (the registry's valid
 * body), read (Location), update, delete, read again (404 NOT_FOUND) and list (gone).
 */
interface Lifecycle {
  collection: string;
  create: Operation;
  item: string;
  read: Operation;
  update: Operation;
  remove: Operation;
  list?: Operation;
}

let contract: Contract;
let world: World;

beforeAll(async () => {
  contract = await loadContract();
  world = await createWorld("Lifecycle");
}, 60_000);

function lifecycles(operations: Operation[]): Lifecycle[] {
  const found: Lifecycle[] = [];
  const find = (method: string, template: string) => operations.find((op) => op.method === method && op.template === template);
  for (const create of operations.filter((op) => op.method === "POST" && op.responses["201"]?.headers?.Location)) {
    for (const item of new Set(operations.map((op) => op.template))) {
      const rest = item.slice(create.template.length);
      if (!item.startsWith(`${create.template}/`) || !/^\/\{[^}/]+\}$/.test(rest)) continue;
      const read = find("GET", item);
      const update = find("PUT", item) ?? find("PATCH", item);
      const remove = find("DELETE", item);
      if (read && update && remove) found.push({ collection: create.template, create, item, read, update, remove, list: find("GET", create.template) });
    }
  }
  return found;
}

/** The path parameters of `template` in a concrete (encoded) path. */
function paramsOf(template: string, path: string): Record<string, string> {
  const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const regex = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "([^/]+)")}$`);
  const match = regex.exec(path);
  if (!match) throw new Error(`${path} is not an instance of ${template}`);
  return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match[i + 1]!)]));
}

/** Every item of a list answer, following page tokens. */
async function listAll(list: Operation, params: Record<string, string>, who: Credentials): Promise<any[]> {
  const items: any[] = [];
  const paged = list.parameters.some((p) => p.name === "maxResults");
  let token: string | null | undefined;
  for (let page = 0; page < 50; page++) {
    const query = paged ? `?maxResults=1000${token ? `&pageToken=${encodeURIComponent(token)}` : ""}` : "";
    const res = await call("GET", `${fillTemplate(list.template, params)}${query}`, { as: who });
    expect(res.status, res.text).toBe(200);
    items.push(...res.json.content);
    token = res.json.pageInfo?.nextPageToken;
    if (!token) break;
  }
  return items;
}

/** The listed item that the created object's key (the last path parameter of its Location) names, whatever its member is called (`id`, `name`, `client_id`). */
const identifies = (key: string) => (item: any) => item?.id === key || (item?.id === undefined && Object.values(item ?? {}).includes(key));

/**
 * Members the document marks `x-issued-once` (a client secret) are in the answer that issues
 * them and in no later one: the read is compared with the create without them.
 */
function withoutIssuedOnce(contract: Contract, create: Operation, created: any): any {
  const schema = deref(contract.doc, create.responses["201"]?.content?.[VENDOR_JSON]?.schema ?? {});
  const once = Object.entries<any>(typeof schema === "object" ? (schema.properties ?? {}) : {})
    .filter(([, member]) => (deref(contract.doc, member) as any)?.["x-issued-once"] === true)
    .map(([name]) => name);
  return Object.fromEntries(Object.entries(created ?? {}).filter(([name]) => !once.includes(name)));
}

describe("lifecycles of every collection: create, read, update, delete, read again, list", () => {
  it("finds the collections in the document", () => {
    const found = lifecycles(contract.operations).map((l) => l.collection);
    expect(found.length).toBeGreaterThanOrEqual(3);
  });

  it("each one: created, read back as created, updated, deleted, then 404 and gone from the list", async () => {
    const problems: string[] = [];
    for (const l of lifecycles(contract.operations)) {
      const step = (what: string, res: CallResult, ...statuses: number[]) => {
        if (!statuses.includes(res.status)) throw new Error(`${l.collection}: ${what}: expected ${statuses.join("/")}, got ${res.status} ${res.text.slice(0, 300)}`);
        return res;
      };
      try {
        const entry = FIXTURES[l.collection];
        const parent = (await entry?.params?.(world)) ?? {};
        const who = allowedCaller(l.create, world);
        // Preview operations (the folders) answer only requests that enable the preview.
        const headers: Record<string, string> = l.create.stability === "preview" ? { "X-Enable-Preview": "true" } : {};
        const created = step("create", await call("POST", fillTemplate(l.collection, parent), { as: who, headers, body: entry?.bodies?.POST?.(world, parent) }), 201);
        const location = new URL(created.headers.get("Location")!, "http://api.test").pathname;
        if (!templateMatches(l.item, location)) throw new Error(`${l.collection}: Location ${location} is not an instance of ${l.item}`);
        const itemParams = paramsOf(l.item, location);
        const key = itemParams[l.item.match(/\{([^}]+)\}$/)![1]!]!;

        const read = step("read the created object at its Location", await call("GET", location, { as: who, headers }), 200);
        expect(read.json, `${l.collection}: GET ${location} answers what the create answered`).toEqual(withoutIssuedOnce(contract, l.create, created.json));
        if (l.list) {
          const listed = await listAll(l.list, parent, who);
          if (!listed.some(identifies(key))) problems.push(`${l.collection}: the created object ${key} is not in the list`);
        }

        const updateBody = FIXTURES[l.item]?.bodies?.[l.update.method]?.(world, itemParams);
        step(`${l.update.method} ${l.item}`, await call(l.update.method, location, { as: who, headers, body: updateBody }), 200);
        step(`DELETE ${l.item}`, await call("DELETE", location, { as: who, headers }), 204);
        const gone = step("read after delete", await call("GET", location, { as: who, headers }), 404);
        if (!errorCodesOfAnswer(l.read, 404, gone.json).includes("NOT_FOUND")) problems.push(`${l.collection}: read after delete: ${gone.text.slice(0, 200)}, expected NOT_FOUND`);
        if (l.list) {
          const listed = await listAll(l.list, parent, who);
          if (listed.some(identifies(key))) problems.push(`${l.collection}: the deleted object ${key} is still listed`);
        }
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
    expect(problems).toEqual([]);
  }, 60_000);
});
