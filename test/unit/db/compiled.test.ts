import { eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { compiled, inBatch } from "../../../src/db/compiled";
import type { Database } from "../../../src/db/client";
import { users } from "../../../src/db/schema";

/** A Drizzle handle over a D1 stand-in whose statements say which request prepared them. */
function requestDatabase(request: string): Database {
  const client = { prepare: (query: string) => ({ request, query, bind: () => ({}) }), batch: async () => [] };
  return drizzle(client as unknown as D1Database) as unknown as Database;
}

const userById = compiled((db) => db.select({ id: users.id }).from(users).where(eq(users.id, sql.placeholder("id"))));
const statementOf = (query: unknown) => (query as { stmt: { request: string } }).stmt.request;

describe("compiled queries", () => {
  it("run one template's SQL on each request's own statement", () => {
    const first = userById(requestDatabase("first"));
    const second = userById(requestDatabase("second"));
    expect(statementOf(first)).toBe("first");
    expect(statementOf(second)).toBe("second");
    expect(first.getQuery().sql).toBe(second.getQuery().sql);
    expect(Object.getPrototypeOf(first)).toBe(Object.getPrototypeOf(second));
  });

  it("go into a batch with their values filled, their request's statement, and the template as their only prototype", () => {
    // A request's object never becomes a prototype itself: V8 pays for each new one (db/compiled.ts).
    const query = userById(requestDatabase("batching"));
    const prepared = (inBatch(query, { id: "u-1" }) as unknown as { _prepare(): typeof query })._prepare();
    expect(Object.getPrototypeOf(prepared)).toBe(Object.getPrototypeOf(query));
    expect(statementOf(prepared)).toBe("batching");
    expect(prepared.getQuery().params).toEqual(["u-1"]);
    // The template keeps its placeholder for the next request.
    expect(query.getQuery().params).not.toEqual(["u-1"]);
  });
});
