import { defineRoute, jsonContent } from "../../lib/openapi";
import { CurrentUserSchema } from "./current-user.schemas";

export const getCurrentUser = defineRoute({
  method: "get",
  path: "/",
  tags: ["Users"],
  summary: "Who is calling: the signed-in user (or the supervisor), its account, groups and effective privileges",
  description: "Clients call it first to learn who they are. Any authenticated caller, the supervisor and bearer-token users included.",
  access: { kind: "authenticated" },
  responses: { 200: jsonContent(CurrentUserSchema, "The caller") },
});
