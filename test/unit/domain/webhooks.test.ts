import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { parseHostPolicy } from "../../../src/domain/connectors/host-policy";
import { WebhookSecrets } from "../../../src/domain/webhooks/secret";
import { webhookSettings } from "../../../src/domain/webhooks/settings";
import { backoffSeconds, matchesAny, newSigningSecret, patternProblem, signatureOf, urlProblem } from "../../../src/domain/webhooks/webhooks";

describe("event patterns", () => {
  it("takes *, exact actions and prefixes some action starts with", () => {
    for (const ok of ["*", "source.*", "custom-metric.update", "webhook.disable", "login.*"]) expect(patternProblem(ok)).toBeUndefined();
    for (const bad of ["", "source", "source.explode", "nothing.*", "*.update", "source.**"]) expect(patternProblem(bad)).toBeDefined();
  });

  it("matches", () => {
    expect(matchesAny(["*"], "user.create")).toBe(true);
    expect(matchesAny(["source.*"], "source.update")).toBe(true);
    expect(matchesAny(["source.*"], "source-x.update")).toBe(false);
    expect(matchesAny(["custom-metric.update"], "custom-metric.create")).toBe(false);
    expect(matchesAny([], "user.create")).toBe(false);
  });
});

describe("backoff", () => {
  it("doubles from the base, capped at 12 hours", () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffSeconds(n, 30))).toEqual([30, 60, 120, 240, 480]);
    expect(backoffSeconds(40, 30)).toBe(43_200);
    expect(backoffSeconds(3, 0)).toBe(0);
  });

  it("settings fall back to their defaults on missing or malformed values", () => {
    expect(webhookSettings({})).toEqual({ maxAttempts: 8, retryBaseSeconds: 30, disableAfterFailures: 5, timeoutMs: 10_000, sweepGraceSeconds: 60 });
    expect(webhookSettings({ WEBHOOK_MAX_ATTEMPTS: "0", WEBHOOK_RETRY_BASE_SECONDS: "0", WEBHOOK_TIMEOUT_MS: "1.5" })).toMatchObject({ maxAttempts: 8, retryBaseSeconds: 0, timeoutMs: 10_000 });
  });
});

describe("signatures", () => {
  it("are what the standardwebhooks package verifies", async () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ type: "source.update", data: { id: "x" } });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = await signatureOf(secret, "01JDA7Q5N0XZ5M8W4Y9F3R2T1K", timestamp, body);
    const headers = { "webhook-id": "01JDA7Q5N0XZ5M8W4Y9F3R2T1K", "webhook-timestamp": String(timestamp), "webhook-signature": signature };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body.replace("x", "y"), headers)).toThrow();
  });

  it("secrets are sealed to their subscription", async () => {
    const secrets = new WebhookSecrets(["k1"]);
    const sealed = await secrets.seal("whsec_abc", "hook-1");
    expect(sealed).not.toContain("abc");
    expect(await secrets.open(sealed, "hook-1")).toBe("whsec_abc");
    expect(await secrets.open(sealed, "hook-2")).toBeUndefined();
    expect(await new WebhookSecrets(["k2"]).open(sealed, "hook-1")).toBeUndefined();
  });
});

describe("receiver URLs", () => {
  const open = parseHostPolicy("").policy;
  const local = parseHostPolicy("127.0.0.1, *.example.com").policy;
  it("https to a public host; http only to a host listed itself", () => {
    expect(urlProblem("https://hooks.example.org/x?token=1", open)).toBeUndefined();
    expect(urlProblem("http://hooks.example.org/x", open)).toMatch(/https/);
    expect(urlProblem("http://127.0.0.1:8000/x", local)).toBeUndefined();
    expect(urlProblem("http://a.example.com/x", local)).toBeUndefined();
    expect(urlProblem("https://hooks.example.org/x", local)).toMatch(/not in the list/);
  });

  it("no private, loopback or metadata address unless listed, no credentials, no other scheme", () => {
    for (const url of ["https://127.0.0.1/", "https://10.1.2.3/", "https://169.254.169.254/latest/meta-data", "https://[::1]/", "https://localhost/", "https://0x7f.1/"]) {
      expect(urlProblem(url, open), url).toBeDefined();
    }
    expect(urlProblem("https://user:pw@hooks.example.org/", open)).toMatch(/password/);
    expect(urlProblem("ftp://hooks.example.org/", open)).toMatch(/https/);
    expect(urlProblem("hooks.example.org/x", open)).toMatch(/absolute/);
  });
});
