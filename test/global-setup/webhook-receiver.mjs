// A webhook receiver on loopback: the webhook tests' (started by the global setup, its URL handed to
// the tests as inject("webhookReceiver")) and `npm run demo:webhooks`'s. It keeps every request it
// gets, per name, and answers as the subscription URL's query asks:
//   POST /hooks/<name>             204
//   POST /hooks/<name>?fail=3      503 to the first 3 requests of <name>, then 204
//   POST /hooks/<name>?status=410  always that status
//   POST /hooks/<name>?hang=1      never answers (the sender's time-out ends it)
//   GET  /received/<name>          [{headers: {webhook-id, webhook-timestamp, webhook-signature, content-type}, body, answered}]
//   PUT  /secret                   the signing secret (body), handed to onDelivery (the demo verifies with it)
import { createServer } from "node:http";

/** @param {{ port?: number, onDelivery?: (name: string, record: object, secret: string | undefined) => void }} [options] */
export async function startWebhookReceiver({ port = 0, onDelivery } = {}) {
  /** @type {Map<string, object[]>} */
  const received = new Map();
  let secret;
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://receiver");
    const [, kind, name] = url.pathname.split("/");
    if (request.method === "GET" && kind === "received" && name) {
      response.writeHead(200, { "content-type": "application/json" });
      return response.end(JSON.stringify(received.get(name) ?? []));
    }
    if (request.method === "PUT" && kind === "secret") {
      const chunks = [];
      for await (const chunk of request) chunks.push(chunk);
      secret = Buffer.concat(chunks).toString("utf8").trim();
      response.writeHead(204);
      return response.end();
    }
    if (request.method !== "POST" || kind !== "hooks" || !name) {
      response.writeHead(404);
      return response.end();
    }
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    const list = received.get(name) ?? [];
    received.set(name, list);
    const failures = Number(url.searchParams.get("fail") ?? 0);
    const answered = url.searchParams.has("status") ? Number(url.searchParams.get("status")) : list.length < failures ? 503 : 204;
    const headers = Object.fromEntries(["webhook-id", "webhook-timestamp", "webhook-signature", "content-type"].map((h) => [h, request.headers[h] ?? null]));
    const record = { headers, body: Buffer.concat(chunks).toString("utf8"), answered: url.searchParams.has("hang") ? null : answered };
    list.push(record);
    onDelivery?.(name, record, secret);
    if (url.searchParams.has("hang")) return;
    response.writeHead(answered);
    response.end();
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : port,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
