// What the deploy build gets for "@asteasolutions/zod-to-openapi" (scripts/build.mjs alias): what
// @hono/zod-openapi needs to register routes and extend zod with `.openapi()`, without the document
// generator, 22 KiB of the bundle. The deployed Worker never generates the document: it is built at
// build time (scripts/openapi-document.mjs, over the real package) and served from the static
// assets. The tests and that script use the package itself.
export { OpenAPIRegistry, extendZodWithOpenApi, getOpenApiMetadata } from "../../node_modules/@asteasolutions/zod-to-openapi/dist/index.mjs";

class GeneratedAtBuildTime {
  constructor() {
    throw new Error("The OpenAPI document is generated at build time (scripts/openapi-document.mjs), not in the Worker");
  }
}
export { GeneratedAtBuildTime as OpenApiGeneratorV3, GeneratedAtBuildTime as OpenApiGeneratorV31 };
