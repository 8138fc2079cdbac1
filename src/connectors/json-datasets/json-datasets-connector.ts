import { listDatasets, readDatasetText, type DatasetSummary } from "../../db/json-datasets";
import { recordsOfDocument, rowsOfRecords, inferColumns } from "../../domain/connectors/json-columns";
import { MAX_PREVIEW_ROWS, previewRowLimit } from "../../domain/connectors/preview-limit";
import type { ConnectionScope, ConnectionTestResult, Connector, PreviewResult, TableDescription } from "../connector";
import { ConnectorError } from "../connector-error";
import { runConnectionTest } from "../connection-test";

/** The one schema: every dataset of the account is a table of it, named like the dataset. */
export const SCHEMA_NAME = "datasets";

/**
 * The JSON datasets of the connection's own account, read from this service's database: each one
 * a table whose records are its data (json-columns.ts, recordsOfDocument) and whose columns are
 * inferred from them. Another account's datasets are never read: every query is scoped to the
 * account the connection belongs to, which the route gives, never the connection's parameters.
 */
export class JsonDatasetsConnector implements Connector {
  constructor(private readonly scope: ConnectionScope | undefined) {}

  test(): Promise<ConnectionTestResult> {
    return runConnectionTest(
      async () => {
        const count = (await this.datasets()).length;
        return { connected: true, message: `The account's ${count} JSON dataset${count === 1 ? " is a table" : "s are tables"} of schema "${SCHEMA_NAME}".` };
      },
      (text) => text,
    );
  }

  async listSchemas(): Promise<string[]> {
    this.account();
    return [SCHEMA_NAME];
  }

  async describeSchema(schema: string): Promise<TableDescription[]> {
    assertSchema(schema);
    const tables: TableDescription[] = [];
    // One dataset at a time: only one dataset's data is in memory at once.
    for (const dataset of await this.datasets()) {
      tables.push({ name: dataset.name, kind: "TABLE", columns: inferColumns(await this.records(dataset)) });
    }
    return tables;
  }

  async preview(schema: string, table: string, limit?: number): Promise<PreviewResult> {
    const rows = previewRowLimit(limit);
    if (rows === undefined) throw new ConnectorError("INVALID_PARAMETERS", `The row limit must be a whole number from 1 to ${MAX_PREVIEW_ROWS}.`);
    assertSchema(schema);
    const dataset = (await this.datasets()).find((d) => d.name === table);
    if (!dataset) throw new ConnectorError("NOT_FOUND", `Schema "${SCHEMA_NAME}" has no table "${table}": the account has no JSON dataset of this name.`);
    return rowsOfRecords(await this.records(dataset), rows);
  }

  private account(): ConnectionScope {
    if (!this.scope) throw new ConnectorError("INVALID_PARAMETERS", "A JSON datasets connection reads the datasets of its account, and none was given.");
    return this.scope;
  }

  private datasets(): Promise<DatasetSummary[]> {
    const { database, accountId } = this.account();
    return listDatasets(database, accountId);
  }

  private async records(dataset: DatasetSummary): Promise<Record<string, unknown>[]> {
    const { database, accountId } = this.account();
    const text = await readDatasetText(database, accountId, dataset.id);
    // Deleted since it was listed: the table is gone.
    if (text === undefined) throw new ConnectorError("NOT_FOUND", `The JSON dataset "${dataset.name}" was deleted meanwhile.`);
    return recordsOfDocument(JSON.parse(text));
  }
}

function assertSchema(schema: string): void {
  if (schema !== SCHEMA_NAME) throw new ConnectorError("NOT_FOUND", `Schema "${schema}" does not exist; the only schema is "${SCHEMA_NAME}".`);
}
