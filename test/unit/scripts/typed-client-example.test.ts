import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:http";
import { describe, expect, it } from "vitest";

/** `npm run example:typed-client` (examples/typed-client.ts): a failure is one clear line, never a stack trace. */
async function runExample(apiUrl: string): Promise<{ code: number; output: string }> {
  execFileSync(process.execPath, ["node_modules/esbuild/bin/esbuild", "examples/typed-client.ts", "--bundle", "--platform=node", "--format=esm", "--log-level=warning", "--outfile=.wrangler/examples/typed-client.mjs"]);
  const child = spawn(process.execPath, [".wrangler/examples/typed-client.mjs"], { env: { ...process.env, API_URL: apiUrl }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const [code] = await once(child, "exit");
  return { code, output };
}

describe("the typed-client example", () => {
  it("says in one line that its user cannot sign in (the walk-through deleted her)", async () => {
    const server = createServer((_request, response) => response.writeHead(401, { "Content-Type": "application/json" }).end("{}"));
    await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, resolve));
    try {
      const { code, output } = await runExample(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
      expect(code).toBe(1);
      expect(output.trim().split("\n")).toHaveLength(1);
      expect(output).toMatch(/^Listing sources: 401: alice cannot sign in/);
    } finally {
      server.close();
    }
  }, 60_000);

  it("says in one line that the service cannot be reached", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise((resolve) => server.close(resolve));
    const { code, output } = await runExample(`http://127.0.0.1:${port}`);
    expect(code).toBe(1);
    expect(output.trim()).toBe(`Cannot reach http://127.0.0.1:${port}: is npm start running? (API_URL picks another address.)`);
  }, 60_000);
});
