import { asc } from "drizzle-orm";
import { readableByEach } from "../../db/source-access";
import { sources } from "../../db/schema";
import { createRouter } from "../../lib/create-router";
import * as routes from "./dashboards.routes";

// The listing's query, compiled once per isolate (db/compiled.ts) for each kind of reader: Drizzle built its SQL on every request.
const readableSourceBriefs = readableByEach((db, readable) =>
  db.select({ id: sources.id, name: sources.name }).from(sources).where(readable).orderBy(asc(sources.name)),
);

/** /api/dashboards: the deprecated E16 listing. */
export const dashboardsRouter = createRouter().openapi(routes.listSourceBriefs, async (c) => {
  const { query, values } = readableSourceBriefs(c.get("db"), c.get("principal"));
  const rows = await query.all(values);
  return c.json({ content: rows }, 200);
});
