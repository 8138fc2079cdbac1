// A typed client of this API (src/client.ts): lists the caller's sources, then adds a custom
// metric to the first. Paths, bodies and answers are typed from the API's own Zod schemas;
// `npm test` type-checks this file. With npm start running: npm run example:typed-client
// (API_URL, API_USER and API_PASSWORD pick the service and the caller).
import { createApiClient } from "../src/client";

const baseUrl = process.env.API_URL ?? "http://127.0.0.1:8787";
const username = process.env.API_USER ?? "alice";
const api = createApiClient(baseUrl, { username, password: process.env.API_PASSWORD ?? "alice-password" });

/** A failure the reader can act on: one line, no stack trace. */
function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const listed = await api.api.sources.$get({ query: { maxResults: "10" } }).catch(() => fail(`Cannot reach ${baseUrl}: is npm start running? (API_URL picks another address.)`));
// The client types successes only: other statuses are read as plain numbers.
if ((listed.status as number) === 401) {
  fail(`Listing sources: 401: ${username} cannot sign in to ${baseUrl}. The walk-through creates alice and deletes her at its end: run it up to the user's creation, or set API_USER and API_PASSWORD to a user of yours.`);
}
if ((listed.status as number) !== 200) fail(`Listing sources: ${listed.status} ${await listed.text()}`);
const { content: sources } = await listed.json();
for (const source of sources) console.log(`${source.id}  ${source.name}`);

const [first] = sources;
if (first) {
  const created = await api.api.sources[":sourceId"]["custom-metrics"].$post({
    param: { sourceId: first.id },
    json: { name: "row_count", label: "Row count", expression: "count(*)" },
  });
  if (created.status === 201) {
    const metric = await created.json();
    console.log(`Created ${metric.name} (${metric.dataType}) on ${first.name}`);
  } else {
    // Errors are ErrorMessage bodies (the OpenAPI document lists them); the client types successes only.
    console.log(`Not created (${created.status}): ${await created.text()}`);
  }
}
