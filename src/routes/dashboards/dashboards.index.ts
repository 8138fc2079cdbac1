import { asc } from "drizzle-orm";
import { readableBy } from "../../db/source-access";
import { sources } from "../../db/schema";
import { createRouter } from "../../lib/create-router";
import * as routes from "./dashboards.routes";

/** /api/dashboards: the deprecated E16 listing. */
export const dashboardsRouter = createRouter().openapi(routes.listSourceBriefs, async (c) => {
  const rows = await c
    .get("db")
    .select({ id: sources.id, name: sources.name })
    .from(sources)
    .where(readableBy(c.get("principal")))
    .orderBy(asc(sources.name))
    .all();
  return c.json({ content: rows }, 200);
});
