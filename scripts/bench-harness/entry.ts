// What the bench (scripts/bench.mjs) takes from the integration tests' harness: the document's
// route table, the fixture registry and the registry's valid request of each operation. Bundled
// for Node by scripts/bench-harness/build.mjs with the shims of ./shims, so `call` goes over HTTP.
export { loadContract } from "../../test/integration/harness/contract";
export { createWorld } from "../../test/integration/harness/fixtures";
export { allowedCaller } from "../../test/integration/harness/access";
export { hasFixtures, paramsFor, validRequest } from "../../test/integration/harness/operation-requests";
export { planUrl, toCallOptions } from "../../test/integration/harness/request-plan";
export { buildRequest, call, createGroup, createUser, SUPERVISOR } from "../../test/integration/helpers";
