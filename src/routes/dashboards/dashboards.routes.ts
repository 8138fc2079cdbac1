import { defineRoute, jsonContent } from "../../lib/openapi";
import { SourceBriefListSchema } from "../sources/sources.schemas";

export const listSourceBriefs = defineRoute({
  method: "get",
  path: "/sources",
  tags: ["Sources"],
  summary: "E16 List brief info of the sources the caller may READ (deprecated: use GET /api/sources)",
  access: { kind: "authenticated" },
  stability: "deprecated",
  responses: { 200: jsonContent(SourceBriefListSchema, "Id and name of every readable source") },
});
