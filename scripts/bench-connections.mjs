// The connection rows of the benchmark (npm run bench): an account with 500 connections made
// through the API (the list row), E6 updating one of them, and E7 validating against a real local
// PostgreSQL: the sample server of the connector tests (test/global-setup/), started here in a
// process of its own (servers-process.mjs says why) and stopped when the benchmark ends.
// The Worker must allow 127.0.0.1 (CONNECTOR_ALLOWED_HOSTS) and have a CONNECTION_SECRETS_KEY.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { READER_PASSWORD, READER_USER } from "../test/global-setup/fixture-data.mjs";

const basicAuth = ({ username, password }) => `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
const json = { "Content-Type": "application/json" };
const CONNECTIONS = 500;

/** The sample PostgreSQL (and the test HTTP servers beside it); answers their addresses once they are up. */
async function startSampleStores() {
  const child = spawn(process.execPath, [fileURLToPath(new URL("../test/global-setup/servers-process.mjs", import.meta.url))], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  process.on("exit", () => child.kill("SIGTERM"));
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      const newline = output.indexOf("\n");
      if (newline >= 0) resolve(JSON.parse(output.slice(0, newline)));
    });
    child.once("exit", (code) => reject(new Error(`the sample PostgreSQL exited early (code ${code})`)));
  });
}

/** An account of its own with 500 connections to the sample PostgreSQL (as its reader role), made through the API. */
export async function seedConnectionBench(api, supervisor) {
  const { postgres } = await startSampleStores();
  const account = await api("POST", "/api/accounts", { as: supervisor, body: { name: "Connections Inc" } });
  const manager = { username: "bench-connections", password: "bench-connections-password" };
  await api("POST", "/api/users", { as: supervisor, body: { name: manager.username, password: manager.password, accountId: account.id, groups: ["Administrators"] } });
  const body = (name) => ({
    name,
    connectionTypeId: "postgresql",
    allParameters: [
      { key: "host", value: postgres.host },
      { key: "port", value: String(postgres.port) },
      { key: "database", value: postgres.database },
      { key: "user", value: READER_USER },
      { key: "password", value: READER_PASSWORD },
      { key: "sslmode", value: "disable" },
    ],
  });
  const ids = Array.from({ length: CONNECTIONS }, (_, i) => `c${String(i).padStart(3, "0")}`);
  // Eight at a time: the seed is the API's own writes, not a load test.
  for (let i = 0; i < ids.length; i += 8) {
    await Promise.all(ids.slice(i, i + 8).map((id, k) => api("PUT", `/api/connections/${id}`, { as: manager, body: body(`Connection ${i + k}`) })));
  }
  return { manager, connectionId: ids[0], connectionBody: JSON.stringify(body("Connection 0")), validateBody: JSON.stringify(body("Validated")) };
}

export const connectionScenarios = [
  {
    name: "E6 PUT /api/connections/{id} (update, 500 in the account)",
    request: ({ connectionBench: { manager, connectionId, connectionBody } }) => ({
      method: "PUT",
      path: `/api/connections/${connectionId}`,
      headers: { ...json, Authorization: basicAuth(manager) },
      body: connectionBody,
    }),
  },
  {
    name: "GET /api/connections (500 connections, unpaged)",
    request: ({ connectionBench: { manager } }) => ({ path: "/api/connections", headers: { Authorization: basicAuth(manager) } }),
  },
  {
    name: "E7 POST /api/connections/validate (local PostgreSQL)",
    request: ({ connectionBench: { manager, validateBody } }) => ({
      method: "POST",
      path: "/api/connections/validate",
      headers: { ...json, Authorization: basicAuth(manager) },
      body: validateBody,
    }),
  },
];
