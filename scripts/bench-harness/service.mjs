// What npm run bench and npm run profile share: the variables the service runs with under the
// integration harness's fixtures, and a harness request as plain fetch() arguments.

export const SERVICE_VARS = [
  "EXPOSE_D1_ROUND_TRIPS:true",
  // The harness's supervisor (test/integration/helpers.ts).
  "SUPERVISOR_USERNAME:supervisor",
  "SUPERVISOR_PASSWORD:supervisor-test-password",
  "CREDENTIAL_CACHE_TTL_SECONDS:3600",
  "PAGE_TOKEN_KEY:bench-page-token-key",
  "CONNECTION_SECRETS_KEY:bench-connection-secrets-key",
  "CONNECTOR_ALLOWED_HOSTS:127.0.0.1",
  // Creations are measured for seconds: room for them (the count limits are tested elsewhere).
  "MAX_DATASETS_PER_ACCOUNT:1000000",
];

/** More of the service's variables from the environment: `name` holds "NAME:value ..." (space-separated). */
export const varsFrom = (name) => process.env[name]?.split(/\s+/).filter(Boolean) ?? [];

/** A request of the harness's registry (an operation's valid request) as method, path, headers and body. */
export function wireRequest(harness, plan) {
  const options = harness.toCallOptions(plan);
  const request = harness.buildRequest(plan.method, harness.planUrl(plan), options);
  const url = new URL(request.url);
  return { method: plan.method, path: url.pathname + url.search, headers: Object.fromEntries(request.headers), body: options.rawBody };
}
