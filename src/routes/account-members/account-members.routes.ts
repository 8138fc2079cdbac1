import { defineRoute, jsonBody, jsonContent } from "../../lib/openapi";
import { AccountIdParamSchema, UserRefListSchema, UserViewListSchema } from "./account-members.schemas";

const tags = ["Accounts"];
// As in the reference product: the users with ROLE_ADMINISTER_USERS, the administrators with ROLE_ADMINISTER_GROUPS (the supervisor holds both).
const userAdministrators = { kind: "privilege", privilege: "ROLE_ADMINISTER_USERS" } as const;
const groupAdministrators = { kind: "privilege", privilege: "ROLE_ADMINISTER_GROUPS" } as const;
const params = AccountIdParamSchema;

export const listUsers = defineRoute({
  method: "get",
  path: "/{accountId}/users",
  tags,
  summary: "The account's users, by name (ROLE_ADMINISTER_USERS; a user names its own account)",
  access: userAdministrators,
  errors: ["NOT_FOUND"],
  request: { params },
  responses: { 200: jsonContent(UserViewListSchema, "Every user of the account") },
});

export const putUsers = defineRoute({
  method: "put",
  path: "/{accountId}/users",
  tags,
  summary: "Replace the account's users: the list must name every user of the account (ROLE_ADMINISTER_USERS)",
  description:
    "The reference product's account membership. A user here belongs to exactly one account, made with POST /api/users and removed with " +
    "DELETE /api/users/{id}: no user joins or leaves an account otherwise. So the list must name exactly the account's users: one of another " +
    "account or none is a 400, and a user of the account left out is a 409 ACCOUNT_USERS_INCOMPLETE naming it (never deleted silently). " +
    "Nothing is written; the answer is the list.",
  access: userAdministrators,
  errors: ["NOT_FOUND", "ACCOUNT_USERS_INCOMPLETE"],
  request: { params, body: jsonBody(UserRefListSchema) },
  responses: { 200: jsonContent(UserViewListSchema, "Every user of the account") },
});

export const listAdmins = defineRoute({
  method: "get",
  path: "/{accountId}/admins",
  tags,
  summary: "The account's administrators: its users holding ROLE_ADMIN, by name (ROLE_ADMINISTER_GROUPS)",
  access: groupAdministrators,
  errors: ["NOT_FOUND"],
  request: { params },
  responses: { 200: jsonContent(UserViewListSchema, "The users holding ROLE_ADMIN, through a group or their own roles") },
});

export const putAdmins = defineRoute({
  method: "put",
  path: "/{accountId}/admins",
  tags,
  summary: "Replace the account's administrators (ROLE_ADMINISTER_GROUPS, and ROLE_ADMIN to change anything)",
  description:
    "Afterwards exactly the listed users hold ROLE_ADMIN. A listed user who does not joins the built-in `Administrators` group; a user left out " +
    "leaves it and loses ROLE_ADMIN from its own roles (its other groups and roles stay). Each must be a user of the account (400 otherwise). " +
    "Refused (409 ADMINS_NOT_REPLACEABLE, nothing changed): leaving out oneself, or a user who holds ROLE_ADMIN through another group. Granting " +
    "or taking ROLE_ADMIN needs it (403 PRIVILEGE_ESCALATION). One batch; a concurrent change of the same memberships is a 412.",
  access: groupAdministrators,
  errors: ["NOT_FOUND", "ADMINS_NOT_REPLACEABLE", "PRIVILEGE_ESCALATION", "PRECONDITION_FAILED"],
  request: { params, body: jsonBody(UserRefListSchema) },
  responses: { 200: jsonContent(UserViewListSchema, "The administrators now") },
});
