// `cloudflare:workers` for the bench's bundle: the harness only reaches the Worker through
// ./transport.mjs; helpers that read `env.DB` directly are never called by the bench.
export const env = {};
export const exports = {};
