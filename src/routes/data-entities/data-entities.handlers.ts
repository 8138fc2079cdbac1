import type { AppRouteHandler } from "../../lib/create-router";
import { nativeFieldsOfTable } from "./table-fields";
import type * as routes from "./data-entities.routes";

export const describe: AppRouteHandler<typeof routes.describe> = async (c) =>
  c.json({ content: await nativeFieldsOfTable(c, c.req.valid("json"), c.req.valid("query").suppressWarnings) }, 200);
