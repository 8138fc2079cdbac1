// `cloudflare:test` for the bench's bundle (only the context-path helper of harness/worker.ts used it).
export const createExecutionContext = () => ({ waitUntil() {}, passThroughOnException() {} });
export const waitOnExecutionContext = async () => {};
