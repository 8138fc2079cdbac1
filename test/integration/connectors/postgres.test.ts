// The PostgreSQL connector against a real PostgreSQL server (started by the global setup),
// through the Workers socket API, exactly as the Worker uses it.
import { describe, expect, it } from "vitest";
import { createConnector, type TableDescription } from "../../../src/connectors";
import { withPostgresSession } from "../../../src/connectors/postgres/session";
import { directTarget } from "../../../src/connectors/postgres/parameters";
import { HOSTILE_COLUMN_NAME, HOSTILE_TABLE_NAME, ORDER_COUNT, READER_PASSWORD, READER_USER, SAMPLE_PASSWORD } from "../../global-setup/fixture-data.mjs";
import { environment, expectConnectorError, postgresParameters, servers, timed } from "./helpers";

const postgres = (overrides: Record<string, string> = {}, env = environment()) => createConnector("postgresql", postgresParameters(overrides), env);
const asReader = () => postgres({ user: READER_USER, password: READER_PASSWORD });

describe("test()", () => {
  it("connects with the right password and warns about clear text and a superuser", async () => {
    const result = await postgres().test();
    expect(result.connected).toBe(true);
    expect(result.message).toMatch(/^Connected to PostgreSQL \d+\.\d+ as postgres\.$/);
    expect(result.warning).toContain("not encrypted");
    expect(result.warning).toContain("superuser");
  });

  it("gives no superuser warning for a reading role", async () => {
    const result = await asReader().test();
    expect(result).toMatchObject({ connected: true, message: expect.stringContaining(`as ${READER_USER}.`) });
    expect(result.warning).not.toContain("superuser");
  });

  it("reports a wrong password without repeating it", async () => {
    const wrong = "Wr0ng-Passw0rd-!";
    const result = await postgres({ password: wrong }).test();
    expect(result.connected).toBe(false);
    expect(result.message).toMatch(/password authentication failed for user "postgres"/i);
    expect(result.message).not.toContain(wrong);
    expect(result.message).not.toContain(SAMPLE_PASSWORD);
    const error = await expectConnectorError(postgres({ password: wrong }).listSchemas(), "AUTH_FAILED");
    expect(error.message).not.toContain(wrong);
  });

  it("scrubs the password even from the server's own words", async () => {
    // The server names the user in its message; here the password is the user's name.
    const result = await postgres({ user: "nobody-here", password: "nobody-here" }).test();
    expect(result.connected).toBe(false);
    expect(result.message).toContain('"***"');
    expect(result.message).not.toContain("nobody-here");
  });

  it("says so quickly when nothing listens on the port", async () => {
    const { result, ms } = await timed(() => postgres({ port: String(servers.closedPort) }).test());
    expect(result.connected).toBe(false);
    expect(result.message).toContain(`Could not connect to 127.0.0.1:${servers.closedPort}`);
    expect(ms).toBeLessThan(2000);
  });

  it("gives up after the connect time-out on a server that never answers", async () => {
    const env = environment({ connectMs: 700 });
    for (const sslmode of ["disable", "require"]) {
      const { result, ms } = await timed(() => postgres({ port: String(servers.blackHolePort), sslmode }, env).test());
      expect(result).toEqual({ connected: false, message: `Could not connect to 127.0.0.1:${servers.blackHolePort} within 700 ms.` });
      expect(ms).toBeGreaterThanOrEqual(650);
      expect(ms).toBeLessThan(2500);
    }
  });

  it("names a database that does not exist", async () => {
    const result = await postgres({ database: "no_such_db" }).test();
    expect(result).toEqual({ connected: false, message: 'Database "no_such_db" does not exist' });
  });

  it("refuses a host outside the allowed hosts before connecting", async () => {
    // The black hole would hold a real attempt for the whole connect time-out.
    const port = String(servers.blackHolePort);
    const env = environment({ allowedHosts: "db.example.com", connectMs: 3000 });
    const { result, ms } = await timed(() => postgres({ port }, env).test());
    expect(result.connected).toBe(false);
    expect(result.message).toContain("not in the list of hosts");
    expect(ms).toBeLessThan(300);
    await expectConnectorError(postgres({ port }, env).listSchemas(), "HOST_NOT_ALLOWED");
  });

  it("refuses every spelling of the loopback address when only public hosts are allowed", async () => {
    const env = environment({ allowedHosts: "", connectMs: 3000 });
    const port = String(servers.blackHolePort);
    for (const host of ["127.0.0.1", "localhost", "2130706433", "0x7f.0.0.1", "0177.0.0.1", "127.1", "[::ffff:127.0.0.1]", "::1", "LOCALHOST."]) {
      const { result, ms } = await timed(() => postgres({ host, port }, env).test());
      expect(result.connected, host).toBe(false);
      expect(result.message, host).toMatch(/loopback|local-only/);
      expect(ms, host).toBeLessThan(300);
    }
  });

  it("connects to an allowed host given in another spelling, dialling its canonical form", async () => {
    expect((await postgres({ host: "0x7f.0.0.1" }).test()).connected).toBe(true);
    expect((await postgres({ host: "127.1" }, environment({ allowedHosts: `127.0.0.1:${servers.postgres.port}` })).test()).connected).toBe(true);
  });

  it("lists invalid parameters instead of connecting", async () => {
    const result = await postgres({ host: "", port: "99999" }).test();
    expect(result.connected).toBe(false);
    expect(result.message).toBe("Invalid parameters: Host is required. Port must be between 1 and 65535.");
    const error = await expectConnectorError(postgres({ sslmode: "sometimes" }).listSchemas(), "INVALID_PARAMETERS");
    expect(error.problems).toEqual([{ key: "sslmode", message: "TLS mode must be one of: disable, prefer, require." }]);
  });
});

describe("TLS modes against a server without TLS", () => {
  it("require: refuses to go on in clear text", async () => {
    const result = await postgres({ sslmode: "require" }).test();
    expect(result).toEqual({
      connected: false,
      message: `127.0.0.1:${servers.postgres.port} does not accept TLS connections, and the TLS mode is "require".`,
    });
  });

  it("prefer: falls back to clear text and warns", async () => {
    const result = await postgres({ sslmode: "prefer" }).test();
    expect(result.connected).toBe(true);
    expect(result.warning).toContain('not encrypted (TLS mode "prefer")');
  });

  it("the default is require", async () => {
    const { sslmode: _omitted, ...withoutMode } = postgresParameters();
    const result = await createConnector("postgresql", withoutMode, environment()).test();
    expect(result.message).toContain('the TLS mode is "require"');
  });
});

// A server that offers TLS with a self-signed certificate: what a Worker makes of it.
describe.skipIf(!servers.tlsPostgres)("TLS modes against a server with a self-signed certificate", () => {
  const tlsServer = () => ({ host: servers.tlsPostgres!.host, port: String(servers.tlsPostgres!.port) });

  it("require: the handshake fails, because a Worker always verifies the certificate", async () => {
    const result = await postgres({ ...tlsServer(), sslmode: "require" }).test();
    expect(result).toEqual({
      connected: false,
      message: `The TLS handshake with 127.0.0.1:${servers.tlsPostgres!.port} failed: the server's certificate must be valid for this host name and issued by a publicly trusted authority.`,
    });
    await expectConnectorError(postgres({ ...tlsServer(), sslmode: "require" }).listSchemas(), "TLS_FAILED");
  });

  it("prefer: after the failed handshake, connects again in clear text and warns", async () => {
    const result = await postgres({ ...tlsServer(), sslmode: "prefer" }).test();
    expect(result.connected).toBe(true);
    expect(result.warning).toContain('not encrypted (TLS mode "prefer")');
    expect(await postgres({ ...tlsServer(), sslmode: "prefer" }).listSchemas()).toContain("sales");
  });

  it("disable: never asks for TLS", async () => {
    expect((await postgres({ ...tlsServer(), sslmode: "disable" }).test()).connected).toBe(true);
  });
});

describe("listSchemas()", () => {
  it("lists the user schemas, without system schemas", async () => {
    expect(await postgres().listSchemas()).toEqual(["hr", "public", "restricted", "sales"]);
  });

  it("leaves out schemas the user may not use", async () => {
    expect(await asReader().listSchemas()).toEqual(["hr", "public", "sales"]);
  });
});

describe("describeSchema()", () => {
  const columnsOf = (tables: TableDescription[], name: string) => tables.find((t) => t.name === name)?.columns;

  it("gives every table and view with native types and nullability", async () => {
    const tables = await postgres().describeSchema("sales");
    expect(tables.map((t) => [t.name, t.kind])).toEqual([
      ["big_orders", "VIEW"],
      ["customers", "TABLE"],
      [HOSTILE_TABLE_NAME, "TABLE"],
      ["orders", "TABLE"],
      ["payroll", "TABLE"],
      ["slow_view", "VIEW"],
    ]);
    expect(columnsOf(tables, "customers")).toEqual([
      { name: "id", nativeType: "integer", nullable: false },
      { name: "name", nativeType: "text", nullable: false },
      { name: "email", nativeType: "character varying(200)", nullable: true },
      { name: "vip", nativeType: "boolean", nullable: false },
      { name: "balance", nativeType: "numeric(12,2)", nullable: true },
      { name: "created_at", nativeType: "timestamp with time zone", nullable: false },
    ]);
    expect(columnsOf(tables, "orders")).toEqual([
      { name: "id", nativeType: "bigint", nullable: false },
      { name: "customer_id", nativeType: "integer", nullable: false },
      { name: "amount", nativeType: "numeric(10,2)", nullable: false },
      { name: "ordered_on", nativeType: "date", nullable: false },
      { name: "tags", nativeType: "text[]", nullable: true },
      { name: "details", nativeType: "jsonb", nullable: true },
    ]);
    expect(columnsOf(tables, HOSTILE_TABLE_NAME)).toEqual([
      { name: HOSTILE_COLUMN_NAME, nativeType: "text", nullable: true },
      { name: "select", nativeType: "integer", nullable: true },
    ]);
  });

  it("shows a reading role only the tables it may read", async () => {
    const names = (await asReader().describeSchema("sales")).map((t) => t.name);
    expect(names).toContain("customers");
    expect(names).not.toContain("payroll");
  });

  it("answers NOT_FOUND for an unknown schema, and for one the user may not use", async () => {
    const error = await expectConnectorError(postgres().describeSchema("nope"), "NOT_FOUND");
    expect(error.message).toBe('Schema "nope" does not exist, or user "postgres" may not use it.');
    await expectConnectorError(asReader().describeSchema("restricted"), "NOT_FOUND");
    await expectConnectorError(postgres().describeSchema("pg_catalog"), "NOT_FOUND");
  });
});

describe("preview()", () => {
  it("returns rows in column order as JSON values", async () => {
    const { columns, rows } = await postgres().preview("sales", "customers");
    expect(columns.map((c) => c.name)).toEqual(["id", "name", "email", "vip", "balance", "created_at"]);
    expect(rows).toEqual([
      [1, "Ada", "ada@example.com", true, "1200.50", "2024-01-15 10:00:00+00"],
      [2, "Brendan", null, false, "0.00", "2024-02-01 08:30:00+00"],
      [3, "Chiara", "chiara@example.com", false, null, "2024-03-10 17:45:00+00"],
    ]);
    const orders = await postgres().preview("sales", "orders", 1);
    expect(orders.rows).toEqual([["1", 2, "1.99", "2024-01-02", "{t1}", { n: 1 }]]);
    const employees = await postgres().preview("hr", "employees", 1);
    expect(employees.rows).toEqual([[1, "Grace", 98000.5, "2019-05-01", null, "\\xdeadbeef"]]);
  });

  it("caps the rows: 100 by default, never more than 1000", async () => {
    expect(ORDER_COUNT).toBeGreaterThan(1000);
    expect((await postgres().preview("sales", "orders")).rows).toHaveLength(100);
    expect((await postgres().preview("sales", "orders", 7)).rows).toHaveLength(7);
    expect((await postgres().preview("sales", "orders", 5000)).rows).toHaveLength(1000);
    await expectConnectorError(postgres().preview("sales", "orders", 0), "INVALID_PARAMETERS");
    await expectConnectorError(postgres().preview("sales", "orders", 2.5), "INVALID_PARAMETERS");
  });

  it("quotes a hostile table name whole: quotes, spaces, a dot and SQL stay part of the name", async () => {
    const { columns, rows } = await postgres().preview("sales", HOSTILE_TABLE_NAME);
    expect(columns.map((c) => c.name)).toEqual([HOSTILE_COLUMN_NAME, "select"]);
    expect(rows).toEqual([
      ["still here", 1],
      ["and here", 2],
    ]);
    // The DROP TABLE inside the name never ran.
    expect((await postgres().preview("sales", "customers")).rows).toHaveLength(3);
  });

  it("answers NOT_FOUND for names that are not tables, however they are spelled", async () => {
    for (const table of ["nope", 'customers"; DROP TABLE sales.orders; --', "sales.customers", "CUSTOMERS"]) {
      const error = await expectConnectorError(postgres().preview("sales", table), "NOT_FOUND");
      expect(error.message).toContain(`Table "${table}" does not exist in schema "sales"`);
    }
    await expectConnectorError(postgres().preview("nope", "customers"), "NOT_FOUND");
    await expectConnectorError(asReader().preview("sales", "payroll"), "NOT_FOUND");
    expect((await postgres().preview("sales", "orders", 1)).rows).toHaveLength(1);
  });

  it("stops a statement at the operation time-out", async () => {
    const env = environment({ operationMs: 600 });
    const { result: error, ms } = await timed(() => expectConnectorError(postgres({}, env).preview("sales", "slow_view"), "TIMEOUT"));
    expect(error.message).toBe(`127.0.0.1:${servers.postgres.port} did not finish the query within 600 ms.`);
    expect(ms).toBeLessThan(3000);
  });
});

describe("sessions", () => {
  it("close their connection after every call, failed or not", async () => {
    const env = environment({ operationMs: 500 });
    await postgres().test();
    await postgres().listSchemas();
    await postgres().preview("sales", "orders", 3);
    await expectConnectorError(postgres().preview("sales", "nope"), "NOT_FOUND");
    await expectConnectorError(postgres({}, env).preview("sales", "slow_view"), "TIMEOUT");

    // Ask the server itself who is still connected (a session of our own, excluded).
    const target = directTarget(postgresParameters(), environment());
    let others = -1;
    for (let attempt = 0; attempt < 40 && others !== 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      others = await withPostgresSession(target, environment(), async ({ sql }) => {
        const [row] = await sql.unsafe<{ count: number }[]>(
          "SELECT count(*)::int AS count FROM pg_stat_activity WHERE application_name = 'analytics-metadata-api' AND pid <> pg_backend_pid()",
        );
        return row.count;
      });
    }
    expect(others).toBe(0);
  });

  it("are read-only", async () => {
    const target = directTarget(postgresParameters(), environment());
    const error = await expectConnectorError(
      withPostgresSession(target, environment(), ({ sql }) => sql.unsafe("DELETE FROM sales.customers")),
      "UPSTREAM_ERROR",
    );
    expect(error.message).toContain("read-only transaction");
    expect((await postgres().preview("sales", "customers")).rows).toHaveLength(3);
  });
});
