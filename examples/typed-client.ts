// A typed client of this API (src/client.ts): lists the caller's sources, then adds a custom
// metric to the first. Paths, bodies and answers are typed from the API's own Zod schemas;
// `npm test` type-checks this file. With npm start running: npm run example:typed-client
// (API_URL, API_USER and API_PASSWORD pick the service and the caller).
import { createApiClient } from "../src/client";

const api = createApiClient(process.env.API_URL ?? "http://127.0.0.1:8787", {
  username: process.env.API_USER ?? "alice",
  password: process.env.API_PASSWORD ?? "alice-password",
});

const listed = await api.api.sources.$get({ query: { maxResults: "10" } });
if (listed.status !== 200) throw new Error(`Listing sources: ${listed.status}`);
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
