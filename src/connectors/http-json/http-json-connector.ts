import { inferColumns, rowsOfRecords } from "../../domain/connectors/json-columns";
import { redactSecrets } from "../../domain/connectors/parameters";
import { MAX_PREVIEW_ROWS, previewRowLimit } from "../../domain/connectors/preview-limit";
import type { ConnectionTestResult, Connector, ConnectorEnvironment, PreviewResult, TableDescription } from "../connector";
import { ConnectorError } from "../connector-error";
import { runConnectionTest } from "../connection-test";
import { fetchRecords, type JsonRecord } from "./fetch-records";
import { httpJsonRequest, SCHEMA_NAME, type HttpJsonRequest } from "./parameters";

/**
 * A URL that answers with a JSON array of objects, seen as one schema ("default") holding
 * one table whose columns are inferred from the records. Every call fetches the URL anew.
 */
export class HttpJsonConnector implements Connector {
  constructor(
    private readonly values: Readonly<Record<string, string>>,
    private readonly environment: ConnectorEnvironment,
    private readonly secrets: readonly string[],
  ) {}

  test(): Promise<ConnectionTestResult> {
    return runConnectionTest(async () => {
      const request = this.request();
      const records = await this.fetch(request);
      const columns = inferColumns(records);
      const warnings: string[] = [];
      if (request.url.protocol === "http:") warnings.push("The URL uses http://: the data and the headers, secrets included, travel unencrypted.");
      if (records.length === 0) warnings.push("The answer is an empty array, so no columns can be inferred yet.");
      const result: ConnectionTestResult = {
        connected: true,
        message: `Received ${records.length} records with ${columns.length} columns from ${request.url.origin}.`,
      };
      if (warnings.length > 0) result.warning = warnings.join(" ");
      return result;
    }, this.scrub);
  }

  async listSchemas(): Promise<string[]> {
    this.request(); // parameters must be valid, even though the answer is fixed
    return [SCHEMA_NAME];
  }

  async describeSchema(schema: string): Promise<TableDescription[]> {
    const request = this.request();
    this.assertSchema(schema);
    const records = await this.fetch(request);
    return [{ name: request.tableName, kind: "TABLE", columns: inferColumns(records) }];
  }

  async preview(schema: string, table: string, limit?: number): Promise<PreviewResult> {
    const request = this.request();
    const rows = previewRowLimit(limit);
    if (rows === undefined) throw new ConnectorError("INVALID_PARAMETERS", `The row limit must be a whole number from 1 to ${MAX_PREVIEW_ROWS}.`);
    this.assertSchema(schema);
    if (table !== request.tableName) throw new ConnectorError("NOT_FOUND", `Schema "${schema}" has no table "${table}"; its only table is "${request.tableName}".`);
    return rowsOfRecords(await this.fetch(request), rows);
  }

  private request(): HttpJsonRequest {
    return httpJsonRequest(this.values);
  }

  private assertSchema(schema: string): void {
    if (schema !== SCHEMA_NAME) throw new ConnectorError("NOT_FOUND", `Schema "${schema}" does not exist; the only schema is "${SCHEMA_NAME}".`);
  }

  private async fetch(request: HttpJsonRequest): Promise<JsonRecord[]> {
    try {
      return await fetchRecords(request.url, request.headers, this.environment);
    } catch (error) {
      if (!(error instanceof ConnectorError)) throw error;
      throw new ConnectorError(error.kind, this.scrub(error.message), error.problems);
    }
  }

  private readonly scrub = (text: string): string => redactSecrets(text, this.secrets);
}
