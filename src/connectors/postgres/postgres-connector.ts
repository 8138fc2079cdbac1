import { previewRowLimit, MAX_PREVIEW_ROWS } from "../../domain/connectors/preview-limit";
import { redactSecrets } from "../../domain/connectors/parameters";
import type { ConnectionTestResult, Connector, ConnectorEnvironment, PreviewResult, TableDescription } from "../connector";
import { ConnectorError } from "../connector-error";
import { runConnectionTest } from "../connection-test";
import { describeSchema, listSchemas, previewTable } from "./catalog";
import type { PostgresTarget } from "./parameters";
import { withPostgresSession, type Session } from "./session";

/**
 * A PostgreSQL database, reached directly or through Hyperdrive. Every call opens its own
 * short session (see session.ts): Workers cannot keep a connection between requests.
 */
export class PostgresConnector implements Connector {
  constructor(
    /** Resolves the parameters; throws INVALID_PARAMETERS or HOST_NOT_ALLOWED, before any connection. */
    private readonly resolveTarget: () => PostgresTarget,
    private readonly environment: ConnectorEnvironment,
    private readonly secrets: readonly string[],
  ) {}

  test(): Promise<ConnectionTestResult> {
    return runConnectionTest(
      () =>
        this.session(async ({ sql, encrypted }, target) => {
          const [row] = await sql.unsafe<{ version: string; user: string; superuser: string }[]>(
            "SELECT current_setting('server_version') AS version, current_user AS user, current_setting('is_superuser') AS superuser",
          );
          const warnings: string[] = [];
          if (target.kind === "direct" && !encrypted) {
            warnings.push(`The connection is not encrypted (TLS mode "${target.sslmode}"): the password and the data cross the network in clear text.`);
          }
          if (row.superuser === "on") warnings.push(`User "${row.user}" is a superuser; a role that may only read is safer for analytics.`);
          const result: ConnectionTestResult = { connected: true, message: `Connected to PostgreSQL ${row.version} as ${row.user}.` };
          if (warnings.length > 0) result.warning = warnings.join(" ");
          return result;
        }),
      (text) => redactSecrets(text, this.secrets),
    );
  }

  listSchemas(): Promise<string[]> {
    return this.session(({ sql }) => listSchemas(sql));
  }

  describeSchema(schema: string): Promise<TableDescription[]> {
    return this.session(({ sql }, target) => describeSchema(sql, schema, userOf(target)));
  }

  preview(schema: string, table: string, limit?: number): Promise<PreviewResult> {
    const rows = previewRowLimit(limit);
    if (rows === undefined) {
      return Promise.reject(new ConnectorError("INVALID_PARAMETERS", `The row limit must be a whole number from 1 to ${MAX_PREVIEW_ROWS}.`));
    }
    return this.session(({ sql }, target) => previewTable(sql, schema, table, rows, userOf(target)));
  }

  // Resolves the target, runs the work in a session, and scrubs secrets from any failure.
  private async session<T>(work: (session: Session, target: PostgresTarget) => Promise<T>): Promise<T> {
    let target: PostgresTarget | undefined;
    try {
      target = this.resolveTarget();
      const resolved = target;
      return await withPostgresSession(resolved, this.environment, (session) => work(session, resolved));
    } catch (error) {
      if (!(error instanceof ConnectorError)) throw error;
      // Hyperdrive's generated password is a secret too, though no parameter holds it.
      const secrets = target?.kind === "hyperdrive" ? [...this.secrets, target.binding.password] : this.secrets;
      throw new ConnectorError(error.kind, redactSecrets(error.message, secrets), error.problems);
    }
  }
}

function userOf(target: PostgresTarget): string {
  return target.kind === "direct" ? target.user : target.binding.user;
}
