// Small real servers for the connector tests: an HTTP server with good and broken JSON
// answers, a TCP "black hole" that accepts connections and never says a word, and a
// helper that finds a port with nothing listening on it.
import { createServer as createHttpServer } from "node:http";
import { createServer as createTcpServer } from "node:net";
import { FIXTURE_BEARER_TOKEN, FIXTURE_RECORDS } from "./fixture-data.mjs";

/** @typedef {{ port: number, close: () => Promise<void> }} RunningServer */

/** Paths: see the switch below. @returns {Promise<RunningServer>} */
export async function startJsonFixtureServer() {
  const server = createHttpServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://fixture");
    switch (url.pathname) {
      case "/records.json":
        return sendJson(response, FIXTURE_RECORDS);
      case "/many.json":
        return sendJson(response, Array.from({ length: 2500 }, (_, i) => ({ n: i + 1 })));
      case "/empty.json":
        return sendJson(response, []);
      case "/secured.json":
        if (request.headers.authorization !== `Bearer ${FIXTURE_BEARER_TOKEN}`) {
          response.writeHead(401, { "content-type": "application/json" });
          return response.end('{"error":"unauthorized"}');
        }
        return sendJson(response, [{ secret: "ok" }]);
      case "/echo-headers.json": {
        const { "x-custom": custom = null, "x-other": other = null, authorization = null, accept = null } = request.headers;
        return sendJson(response, [{ custom, other, authorization, accept }]);
      }
      case "/not-json":
        response.writeHead(200, { "content-type": "text/html" });
        return response.end("<html><body>Hello</body></html>");
      case "/object.json":
        return sendJson(response, { data: FIXTURE_RECORDS });
      case "/scalars.json":
        return sendJson(response, [1, 2, 3]);
      case "/server-error":
        response.writeHead(500, { "content-type": "text/plain" });
        return response.end("boom");
      case "/slow.json":
        return; // never answers: only the connector's time-out ends the wait
      case "/huge.json":
        return streamHugeArray(response);
      case "/redirect": // to wherever ?to= says
        response.writeHead(302, { location: url.searchParams.get("to") ?? "/" });
        return response.end();
      default:
        response.writeHead(404);
        return response.end();
    }
  });
  return listen(server);
}

/** Accepts TCP connections and never answers: a server that hangs. @returns {Promise<RunningServer>} */
export async function startBlackHoleServer() {
  return listen(createTcpServer((socket) => socket.on("error", () => {})));
}

/** A port that was free a moment ago: nothing listens there until someone takes it. */
export async function findFreePort() {
  const { port, close } = await listen(createTcpServer());
  await close();
  return port;
}

function sendJson(response, body) {
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

// About 8 MB, chunked with no Content-Length, so only a cap on the bytes read can stop it.
function streamHugeArray(response) {
  response.writeHead(200, { "content-type": "application/json" });
  response.on("error", () => {});
  const record = JSON.stringify({ filler: "x".repeat(1000) });
  let remaining = 8000;
  response.write("[");
  const writeMore = () => {
    while (remaining > 0) {
      remaining--;
      if (!response.write(remaining > 0 ? record + "," : record + "]")) return void response.once("drain", writeMore);
    }
    response.end();
  };
  writeMore();
}

/** Listens on 127.0.0.1 on a free port; close() also drops open connections. */
function listen(server) {
  const sockets = new Set();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const close = () =>
        new Promise((done) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => done());
        });
      resolve({ port: server.address().port, close });
    });
  });
}
