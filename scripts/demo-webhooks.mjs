// `npm run demo:webhooks`: a webhook receiver on 127.0.0.1 (PORT, default 8790) that prints every
// delivery it gets and checks its signature with the standardwebhooks package once it knows the
// subscription's secret (PUT /secret with the secret as the body; the walk-through does it).
// Subscribe it with {"url": "http://127.0.0.1:8790/hooks/<any name>", "events": ["*"]}; .dev.vars
// lists 127.0.0.1 in CONNECTOR_ALLOWED_HOSTS, which lets plain http reach it. Ctrl-C stops it.
import { Webhook } from "standardwebhooks";
import { startWebhookReceiver } from "../test/global-setup/webhook-receiver.mjs";

const port = Number(process.env.PORT ?? 8790);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`PORT must be a port number, not ${JSON.stringify(process.env.PORT)}.`);
  process.exit(1);
}

function verdict(record, secret) {
  if (!secret) return "signature not checked (no secret yet: PUT /secret)";
  try {
    new Webhook(secret).verify(record.body, record.headers);
    return "signature OK";
  } catch (error) {
    return `signature REFUSED (${error.message})`;
  }
}

await startWebhookReceiver({
  port,
  onDelivery(name, record, secret) {
    let type = "?";
    try {
      type = JSON.parse(record.body).type;
    } catch {}
    console.log(`${new Date().toISOString()} /hooks/${name} ${type} webhook-id=${record.headers["webhook-id"]} ${verdict(record, secret)}`);
    console.log(`  ${record.body.slice(0, 300)}`);
  },
}).catch((error) => {
  console.error(`Could not listen on 127.0.0.1:${port}: ${error.message}. Try PORT=8791 npm run demo:webhooks`);
  process.exit(1);
});
console.log(`Webhook receiver listening: http://127.0.0.1:${port}/hooks/<name> (Ctrl-C stops it)`);
