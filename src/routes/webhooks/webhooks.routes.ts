import { defineRoute, IdParamSchema, jsonBody, jsonContent, noContent } from "../../lib/openapi";
import {
  DeliveryParamSchema,
  DeliveryQuerySchema,
  WebhookListQuerySchema,
  WebhookCreateSchema,
  WebhookDeliveryListSchema,
  WebhookDeliverySchema,
  WebhookListSchema,
  WebhookPingSchema,
  WebhookSchema,
  WebhookUpdateSchema,
} from "./webhooks.schemas";

const tags = ["Webhooks"];
// An account's administrators (ROLE_ADMIN implies it), for the account's changes; the supervisor for
// changes outside any account, and any account's subscriptions (SUPERVISOR_TENANT_PRIVILEGES).
const access = { kind: "privilege", privilege: "ROLE_MANAGE_WEBHOOKS" } as const;

export const list = defineRoute({
  method: "get",
  path: "/",
  tags,
  summary: "The subscriptions of the caller's account (the supervisor: those outside any account, or the account named), never with their secrets",
  access,
  errors: ["ACCOUNT_FORBIDDEN"],
  request: { query: WebhookListQuerySchema },
  responses: { 200: jsonContent(WebhookListSchema, "Every subscription of that scope (at most 100), oldest first") },
});

export const create = defineRoute({
  method: "post",
  path: "/",
  tags,
  summary: "Subscribe a URL to changes: the answer is the only one that shows the signing secret",
  access,
  errors: ["CONNECTION_SECRETS_UNAVAILABLE", "ACCOUNT_FORBIDDEN", "TOO_MANY_WEBHOOKS"],
  request: { body: jsonBody(WebhookCreateSchema) },
  responses: { 201: jsonContent(WebhookSchema, "The subscription, with its secret (shown this once)") },
});

export const getOne = defineRoute({
  method: "get",
  path: "/{id}",
  tags,
  summary: "One subscription; another account's is 404",
  access,
  errors: ["NOT_FOUND"],
  request: { params: IdParamSchema },
  responses: { 200: jsonContent(WebhookSchema, "The subscription (without its secret)") },
});

export const update = defineRoute({
  method: "patch",
  path: "/{id}",
  tags,
  summary: "Change a subscription's url, events, description or enabled (members omitted are kept)",
  access,
  errors: ["NOT_FOUND", "PRECONDITION_FAILED"],
  request: { params: IdParamSchema, body: jsonBody(WebhookUpdateSchema) },
  responses: { 200: jsonContent(WebhookSchema, "The subscription (without its secret)") },
});

export const remove = defineRoute({
  method: "delete",
  path: "/{id}",
  tags,
  summary: "Delete a subscription and its deliveries",
  access,
  errors: ["NOT_FOUND", "PRECONDITION_FAILED"],
  request: { params: IdParamSchema },
  responses: { 204: noContent },
});

export const rotateSecret = defineRoute({
  method: "post",
  path: "/{id}/secret",
  tags,
  summary: "Rotate the signing secret: the answer shows the new one once; deliveries are signed with it from now on",
  access,
  errors: ["NOT_FOUND", "PRECONDITION_FAILED", "CONNECTION_SECRETS_UNAVAILABLE"],
  request: { params: IdParamSchema },
  responses: { 200: jsonContent(WebhookSchema, "The subscription with its new secret (shown this once)") },
});

export const deliveries = defineRoute({
  method: "get",
  path: "/{id}/deliveries",
  tags,
  summary: "A subscription's deliveries, newest first: event, attempts, last status, next attempt, outcome",
  access,
  errors: ["NOT_FOUND"],
  request: { params: IdParamSchema, query: DeliveryQuerySchema },
  responses: { 200: jsonContent(WebhookDeliveryListSchema, "The deliveries") },
});

export const retryDelivery = defineRoute({
  method: "post",
  path: "/{id}/deliveries/{deliveryId}/retry",
  tags,
  summary: "Try a FAILED delivery again, from its first attempt",
  access,
  errors: ["NOT_FOUND", "DELIVERY_NOT_FAILED"],
  request: { params: DeliveryParamSchema },
  responses: { 202: jsonContent(WebhookDeliverySchema, "The delivery, PENDING again and enqueued") },
});

export const ping = defineRoute({
  method: "post",
  path: "/{id}/test",
  tags,
  summary: "Send a signed ping (type `webhook.ping`) to the subscription's URL now, and tell how it answered",
  access,
  errors: ["NOT_FOUND", "CONNECTION_SECRETS_UNAVAILABLE"],
  request: { params: IdParamSchema },
  responses: { 200: jsonContent(WebhookPingSchema, "How the receiver answered") },
});
