// CPU time of making and sealing a webhook's signing secret (AES-256-GCM, src/domain/sealing.ts),
// measured in Node on the same modules the Worker uses (bundled on the fly with esbuild).
import { build } from "esbuild";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

export async function measureSealingCpu() {
  const dir = mkdtempSync(join(tmpdir(), "amapi-seal-"));
  try {
    const entry = join(dir, "entry.ts");
    writeFileSync(
      entry,
      `export { WebhookSecrets } from ${JSON.stringify(resolve("src/domain/webhooks/secret.ts"))};\n` +
        `export { newSigningSecret } from ${JSON.stringify(resolve("src/domain/webhooks/webhooks.ts"))};\n`,
    );
    const outfile = join(dir, "sealing.mjs");
    await build({ entryPoints: [entry], bundle: true, format: "esm", platform: "neutral", outfile, logLevel: "silent" });
    const { WebhookSecrets, newSigningSecret } = await import(pathToFileURL(outfile).href);
    const secrets = new WebhookSecrets(["bench-key"]);
    const once = async () => secrets.seal(newSigningSecret(), crypto.randomUUID());
    if ((await secrets.open(await secrets.seal("probe", "id"), "id")) !== "probe") throw new Error("sealing does not round-trip");
    for (let i = 0; i < 500; i++) await once();
    const iterations = 5000;
    const before = process.cpuUsage();
    for (let i = 0; i < iterations; i++) await once();
    const used = process.cpuUsage(before);
    return { iterations, microseconds: (used.user + used.system) / iterations };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
