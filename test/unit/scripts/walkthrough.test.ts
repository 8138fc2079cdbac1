import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { describe, expect, it } from "vitest";

/**
 * The walk-through's `call` helper (scripts/walkthrough.sh), taken from the script as it is and run
 * against a small server: each call prints the answer it got, and a 304 prints none.
 */
const script = readFileSync("scripts/walkthrough.sh", "utf8");
const helpers = script.slice(script.indexOf("# say TEXT"), script.indexOf('\nsay "'));

describe("the walk-through's call helper", () => {
  it("prints no body for a 304, not the previous call's", async () => {
    const server = createServer((request, response) => {
      if (request.headers["if-none-match"]) response.writeHead(304, { ETag: '"v1"' }).end();
      else response.writeHead(200, { ETag: '"v1"', "Content-Type": "application/json" }).end('{"previous":"body"}');
    });
    await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/x`;
    try {
      const bash = spawn("bash", ["-c", `set -euo pipefail\nBODY_FILE=$(mktemp); HEADER_FILE=$(mktemp)\n${helpers}\ncall 200 "${url}"\ncall 304 -H 'If-None-Match: "v1"' "${url}"\nrm -f "$BODY_FILE" "$HEADER_FILE"`], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      bash.stdout.on("data", (chunk) => (output += chunk));
      bash.stderr.on("data", (chunk) => (output += chunk));
      const [code] = await once(bash, "exit");
      expect(code, output).toBe(0);
      expect(output.trim().split("\n")).toEqual([`200 GET ${url}`, '  {"previous":"body"}', `304 GET ${url}`]);
    } finally {
      server.close();
    }
  });
});
