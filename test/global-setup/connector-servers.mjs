// Vitest global setup of the integration project: starts, once per run, the real servers the
// connector tests talk to, and hands their addresses to the tests inside workerd with `provide`
// (read there with `inject("connectorServers")`; types in provided-context.d.ts). The servers
// run in a child process (servers-process.mjs says why); everything stops, and PostgreSQL's temp
// data is deleted, when the run ends.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** @param {import("vitest/node").TestProject} project */
export default async function setup(project) {
  const child = spawn(process.execPath, [fileURLToPath(new URL("./servers-process.mjs", import.meta.url))], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const servers = await new Promise((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      const newline = output.indexOf("\n");
      if (newline >= 0) resolve(JSON.parse(output.slice(0, newline)));
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the connector test servers exited early (code ${code})`)));
  });
  if (process.env.CONNECTOR_SETUP_TIMING) console.log(`connector test servers ready in ${servers.readyInMs} ms`);
  const { readyInMs: _, ...connectorServers } = servers;
  project.provide("connectorServers", connectorServers);

  return async () => {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.stdin.end();
    let timer;
    await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 15_000)))]);
    clearTimeout(timer);
    if (child.exitCode === null) child.kill("SIGKILL");
    child.stdout.destroy();
  };
}
