// CPU time of making and sealing a webhook's signing secret (AES-256-GCM, src/domain/sealing.ts),
// measured in Node on the same modules the Worker uses (bundled on the fly with esbuild).
import { importTypeScriptOnce } from "./import-typescript.mjs";

export async function measureSealingCpu() {
  const { WebhookSecrets, newSigningSecret } = await importTypeScriptOnce(
    `export { WebhookSecrets } from "./src/domain/webhooks/secret.ts"; export { newSigningSecret } from "./src/domain/webhooks/webhooks.ts";`,
  );
  const secrets = new WebhookSecrets(["bench-key"]);
  const once = async () => secrets.seal(newSigningSecret(), crypto.randomUUID());
  if ((await secrets.open(await secrets.seal("probe", "id"), "id")) !== "probe") throw new Error("sealing does not round-trip");
  for (let i = 0; i < 500; i++) await once();
  const iterations = 5000;
  const before = process.cpuUsage();
  for (let i = 0; i < iterations; i++) await once();
  const used = process.cpuUsage(before);
  return { iterations, microseconds: (used.user + used.system) / iterations };
}
