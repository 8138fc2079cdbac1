// `cloudflare:workers` for the bench's bundle: the harness only reaches the Worker through
// ./transport.mjs; helpers that read `env.DB` directly are never called by the bench. The bench's
// service is one database: TEST_DATABASES as the one-database test projects have it (helpers.ts
// reads it as it loads, for ROUTING_TRIPS).
export const env = { TEST_DATABASES: ["DB"] };
export const exports = {};
