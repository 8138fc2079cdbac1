// npm run test:browser: the API reference page in a real browser, with no internet.
// Starts the Worker (wrangler dev on a fresh local D1, as npm start does), opens /docs in
// headless Chromium (Debian's `chromium` package, driven by playwright-core), and checks that
// the page shows the document's title and a section for every tag, and that it made no request
// to any other origin. Saves a screenshot to docs/api-reference.png.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { assertNode22, runWrangler, startWrangler } from "./wrangler.mjs";

assertNode22();
await import("./prepare-assets.mjs");

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!existsSync(CHROMIUM)) {
  console.error(`No Chromium at ${CHROMIUM}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH.`);
  process.exit(1);
}
const PORT = Number(process.env.BROWSER_TEST_PORT ?? 8798);
const origin = `http://127.0.0.1:${PORT}`;
const state = mkdtempSync(join(tmpdir(), "amapi-browser-"));

await runWrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", state], { stdio: "ignore" });
const worker = startWrangler(["dev", "--ip", "127.0.0.1", "--port", String(PORT), "--persist-to", state, "--show-interactive-dev-session=false"], {
  stdio: ["ignore", "ignore", "inherit"],
});
let browser;
try {
  await waitUntilUp();
  const document = await (await fetch(`${origin}/api/openapi.json`)).json();
  const tags = [...new Set(Object.values(document.paths).flatMap((item) => Object.values(item).flatMap((op) => op.tags ?? [])))];

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    // Without the background-networking flags Chromium tries to reach Google's services at start.
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const foreign = [];
  const failed = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.origin !== origin && url.protocol !== "data:" && url.protocol !== "blob:") foreign.push(request.url());
  });
  page.on("requestfailed", (request) => failed.push(`${request.url()}: ${request.failure()?.errorText}`));
  const violations = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });

  const response = await page.goto(`${origin}/docs`, { waitUntil: "networkidle" });
  assert.equal(response.status(), 200);
  await page.getByText(document.info.title, { exact: false }).first().waitFor({ timeout: 30_000 });
  const text = await page.locator("body").innerText();
  const missing = tags.filter((tag) => !text.includes(tag));

  mkdirSync("docs", { recursive: true });
  await page.screenshot({ path: "docs/api-reference.png" });

  console.log(`title shown: ${document.info.title}`);
  console.log(`tag sections: ${tags.length - missing.length} of ${tags.length} shown`);
  console.log(`requests to other origins: ${foreign.length}`);
  console.log("screenshot: docs/api-reference.png");
  assert.deepEqual(missing, [], `tag sections missing from the page: ${missing.join(", ")}`);
  assert.deepEqual(foreign, [], `the page requested other origins:\n${foreign.join("\n")}`);
  assert.deepEqual(violations, [], `Content-Security-Policy violations:\n${violations.join("\n")}`);
  assert.deepEqual(failed, [], `requests that failed:\n${failed.join("\n")}`);
  console.log("browser test passed");
} finally {
  await browser?.close();
  worker.kill("SIGTERM");
  rmSync(state, { recursive: true, force: true });
}

async function waitUntilUp() {
  for (let i = 0; i < 120; i++) {
    try {
      if ((await fetch(`${origin}/api/health`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("wrangler dev did not start");
}
