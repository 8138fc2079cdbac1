import type { Context } from "hono";
import { ConnectorError } from "../../connectors";
import { nativeFieldsOf, type NativeFieldDefinition } from "../../domain/connectors/native-fields";
import type { AppEnv } from "../../lib/types";
import { askStore, openStoredConnection } from "../connections/data-store";
import { VOLUME_METRIC } from "../custom-metrics/metrics.model";

export interface TableRef {
  connectionId: string;
  schema: string;
  table: string;
}

/**
 * A table of a stored connection of the caller's account as the native fields of a new source:
 * one D1 read (the connection), then the connector describes the table. What the describe
 * endpoint answers, and what a source created with the reference's `storage` gets.
 */
export async function nativeFieldsOfTable(c: Context<AppEnv>, { connectionId, schema, table }: TableRef, suppressWarnings = false): Promise<NativeFieldDefinition[]> {
  const { connector } = await openStoredConnection(c, connectionId, suppressWarnings);
  const described = await askStore(async () => {
    const found = (await connector.describeSchema(schema)).find((t) => t.name === table);
    if (!found) throw new ConnectorError("NOT_FOUND", `Schema "${schema}" has no table or view "${table}" that the connection may read.`);
    return found;
  });
  // Every new source holds the Volume metric: no field may take its name.
  return nativeFieldsOf(schema, table, described.columns, [VOLUME_METRIC.name]);
}
