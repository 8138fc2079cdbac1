// Stands in for test/integration/harness/worker.ts in the bench's bundle: the harness reaches the
// Worker that `wrangler dev` serves over real HTTP instead of calling its fetch handler in-process.
export async function fetchWorker(request, contextPath = "") {
  if (contextPath) throw new Error("the bench serves no context path");
  const url = new URL(request.url);
  const body = request.body === null ? undefined : await request.arrayBuffer();
  return fetch(globalThis.__BENCH_BASE__ + url.pathname + url.search, { method: request.method, headers: request.headers, body, redirect: "manual" });
}
