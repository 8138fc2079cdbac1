import { z } from "@hono/zod-openapi";
import { defineRoute, jsonContent, jsonMediaTypes } from "../../lib/openapi";

const tags = ["Service"];
const publicAccess = { kind: "public" } as const;

export const health = defineRoute({
  method: "get",
  path: "/api/health",
  tags,
  summary: "Liveness probe (touches no storage)",
  access: publicAccess,
  responses: { 200: jsonContent(z.object({ status: z.literal("ok") }).openapi("Health"), "The Worker is up") },
});

export const openapiDocument = defineRoute({
  method: "get",
  path: "/api/openapi.json",
  tags,
  summary: "This OpenAPI 3.1 document",
  access: publicAccess,
  responses: {
    200: {
      description: "The document: `application/json` unless the request's Accept (or, without one, its Content-Type) asks for another JSON media type the service speaks.",
      content: jsonMediaTypes(z.record(z.string(), z.unknown())),
    },
  },
});

export const docs = defineRoute({
  method: "get",
  path: "/docs",
  outsideApi: true,
  tags,
  summary: "API reference page rendering this document",
  access: publicAccess,
  responses: { 200: { description: "HTML page", content: { "text/html": { schema: z.string() } } } },
});

export const root = defineRoute({
  method: "get",
  path: "/",
  outsideApi: true,
  tags,
  summary: "Redirects to the API reference page (/docs, under the context path if there is one)",
  access: publicAccess,
  responses: {
    302: {
      description: "Found: the API reference page is at `Location`.",
      headers: { Location: { description: "The API reference page: `/docs`, or `{contextPath}/docs`.", required: true, schema: { type: "string" as const } } },
    },
  },
});
