import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../lib/types";

const documents = new WeakMap<object, unknown>();

/** Generated from the same Zod schemas that validate requests: at build time (scripts/openapi-document.mjs), and by tests and scripts; once per app. */
export function buildDocument(app: OpenAPIHono<AppEnv>) {
  let doc = documents.get(app);
  if (!doc) {
    app.openAPIRegistry.registerComponent("securitySchemes", "basicAuth", {
      type: "http",
      scheme: "basic",
      description: "HTTP Basic with a user's (or the supervisor's) username and password.",
    });
    app.openAPIRegistry.registerComponent("securitySchemes", "trustedAccessAuth", {
      type: "http",
      scheme: "basic",
      description:
        "HTTP Basic with a trusted-access client's client_id as the username and its client_secret as the password: the token endpoints " +
        "POST /api/trusted-access/push/tokens and POST /api/trusted-access/pull/tokens. The supervisor creates clients with " +
        "POST /api/trusted-access/clients, whose answer is the only one that shows the secret.",
    });
    app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
      type: "http",
      scheme: "bearer",
      description:
        "The access_token answered by POST /api/trusted-access/push/tokens or POST /api/trusted-access/pull/tokens: it signs in its user, " +
        "with exactly that user's privileges, on every endpoint that takes basicAuth, until it expires or is revoked " +
        "(DELETE /api/trusted-access/tokens/{tokenId}, or its client, user or account deleted or disabled). A refused token: 401 with " +
        '`WWW-Authenticate: Bearer error="invalid_token"`.',
    });
    doc = app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: {
        title: "Analytics Metadata Administration API",
        version: "1.0",
        description:
          "Administration of an analytics platform's metadata. JSON bodies are read and written in `application/vnd.service.v3+json`, " +
          "`application/json`, `application/vnd.composer.v3+json` or `application/vnd.zoomdata+json` (parameters such as charset allowed): " +
          "each response lists all four. An answer is written in the type the request's `Accept` prefers (q-values, then the order listed; " +
          "406 when it allows none of the four); without `Accept`, in the request's own `Content-Type` when it is one of the four, else in " +
          "`application/vnd.service.v3+json`. A request without a body is never refused for its `Content-Type`; a body in another type is 415. " +
          "Each operation's `x-access` names what it demands (`supervisor`, `authenticated`, `public`, or a privilege), " +
          "`x-stability` marks experimental, preview (needs `X-Enable-Preview: true`) and deprecated operations, and each error response's " +
          "`x-error-codes` lists the `errorCode` values it can carry.",
      },
      security: [{ basicAuth: [] }, { bearerAuth: [] }],
    });
    documents.set(app, doc);
  }
  return doc;
}
