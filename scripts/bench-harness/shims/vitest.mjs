// `vitest` for the bench's bundle: `inject` answers what the bench provides (globalThis.__BENCH_INJECT__,
// in place of the global setup's values); the assertion helpers are never called by the bench.
export const inject = (key) => {
  const value = globalThis.__BENCH_INJECT__?.[key];
  if (value === undefined) throw new Error(`the bench provides no inject("${key}")`);
  return value;
};
export const expect = () => {
  throw new Error("expect() is not available in the bench");
};
