import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import worker from "../../../src/index";

/**
 * How the tests reach the real Worker: its own fetch handler with the test env, or, behind a
 * context path, the Worker's default export (src/index.ts) with the test env plus CONTEXT_PATH,
 * exactly as a deployment configured with that var would run it.
 */
const bindingsByContextPath = new Map<string, typeof env>();

function bindingsWith(contextPath: string): typeof env {
  let bindings = bindingsByContextPath.get(contextPath);
  // One object per context path, kept: the Worker parses its config once per env object. A copy, not
  // Object.create(env): setting a member on an object whose prototype is the env sets it on the env itself.
  if (!bindings) bindingsByContextPath.set(contextPath, (bindings = { ...env, CONTEXT_PATH: contextPath }));
  return bindings;
}

export async function fetchWorker(request: Request, contextPath = ""): Promise<Response> {
  if (!contextPath) return exports.default.fetch(request);
  const ctx = createExecutionContext();
  const response = await worker.fetch(request as Parameters<typeof worker.fetch>[0], bindingsWith(contextPath), ctx);
  await waitOnExecutionContext(ctx);
  return response;
}
