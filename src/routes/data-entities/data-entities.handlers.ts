import { ConnectorError } from "../../connectors";
import { nativeFieldsOf } from "../../domain/connectors/native-fields";
import type { AppRouteHandler } from "../../lib/create-router";
import { VOLUME_METRIC } from "../custom-metrics/metrics.model";
import { askStore, openStoredConnection } from "../connections/data-store";
import type * as routes from "./data-entities.routes";

export const describe: AppRouteHandler<typeof routes.describe> = async (c) => {
  const { connectionId, schema, table } = c.req.valid("json");
  const { connector } = await openStoredConnection(c, connectionId, c.req.valid("query").suppressWarnings);
  const described = await askStore(async () => {
    const found = (await connector.describeSchema(schema)).find((t) => t.name === table);
    if (!found) throw new ConnectorError("NOT_FOUND", `Schema "${schema}" has no table or view "${table}" that the connection may read.`);
    return found;
  });
  // Every new source holds the Volume metric: no field may take its name.
  return c.json({ content: nativeFieldsOf(schema, table, described.columns, [VOLUME_METRIC.name]) }, 200);
};
