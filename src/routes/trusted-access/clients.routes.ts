import { defineRoute, IdParamSchema, jsonBody, jsonContent, noContent } from "../../lib/openapi";
import {
  SecretRotationSchema,
  TrustedAccessClientCreateSchema,
  TrustedAccessClientListSchema,
  TrustedAccessClientSchema,
  TrustedAccessClientUpdateSchema,
} from "./clients.schemas";

const tags = ["Trusted access"];
const access = { kind: "supervisor" } as const;
// Every error of these routes is {error, error_description}, with an OAuth error code.
const errorBody = "oauth";

export const list = defineRoute({
  method: "get",
  path: "/",
  tags,
  summary: "E12 List trusted-access clients (never with their secrets)",
  access,
  errorBody,
  responses: { 200: jsonContent(TrustedAccessClientListSchema, "Every client, by name") },
});

export const create = defineRoute({
  method: "post",
  path: "/",
  tags,
  summary: "Create a trusted-access client: the answer is the only one that shows its client_secret",
  access,
  errorBody,
  errors: ["DUPLICATED"],
  request: { body: jsonBody(TrustedAccessClientCreateSchema) },
  responses: { 201: jsonContent(TrustedAccessClientSchema, "The client, with its client_secret (shown this once)") },
});

export const getOne = defineRoute({
  method: "get",
  path: "/{id}",
  tags,
  summary: "Load a trusted-access client by its client_id",
  access,
  errorBody,
  errors: ["NOT_FOUND"],
  request: { params: IdParamSchema },
  responses: { 200: jsonContent(TrustedAccessClientSchema, "The client (without its secret)") },
});

export const update = defineRoute({
  method: "patch",
  path: "/{id}",
  tags,
  summary: "Change a client's name, token lifetime, secret expiry or accounts (members omitted are kept)",
  access,
  errorBody,
  errors: ["NOT_FOUND", "DUPLICATED", "PRECONDITION_FAILED"],
  request: { params: IdParamSchema, body: jsonBody(TrustedAccessClientUpdateSchema) },
  responses: { 200: jsonContent(TrustedAccessClientSchema, "The client (without its secret)") },
});

export const remove = defineRoute({
  method: "delete",
  path: "/{id}",
  tags,
  summary: "Delete a client: its secret stops working and every token it issued is revoked at once",
  access,
  errorBody,
  errors: ["NOT_FOUND", "PRECONDITION_FAILED"],
  request: { params: IdParamSchema },
  responses: { 204: noContent },
});

export const rotateSecret = defineRoute({
  method: "post",
  path: "/{id}/secret",
  tags,
  summary: "Rotate a client's secret: the answer shows the new client_secret once; the old one stops working at once or after grace_period_seconds",
  access,
  errorBody,
  errors: ["NOT_FOUND", "PRECONDITION_FAILED"],
  request: { params: IdParamSchema, body: jsonBody(SecretRotationSchema) },
  responses: { 200: jsonContent(TrustedAccessClientSchema, "The client with its new client_secret (shown this once)") },
});
