import { z } from "@hono/zod-openapi";

/** The import's query: a dry run answers the plan and writes nothing; prune also deletes what the bundle lacks. */
export const ImportQuerySchema = z.object({
  dryRun: z
    .enum(["true", "false"])
    .optional()
    .transform((v) => v === "true")
    .openapi({ description: "true: answer the plan (CAN_BE_... statuses) and write nothing" }),
  prune: z
    .enum(["true", "false"])
    .optional()
    .transform((v) => v === "true")
    .openapi({ description: "true: objects of the account absent from the bundle are deleted (never a built-in group)" }),
});

const PlanEntrySchema = z
  .object({
    type: z.enum(["group", "quota", "connection", "calendar", "source", "jsonDataset", "folder", "materializedView"]),
    name: z.string().optional(),
    path: z.array(z.string()).optional().openapi({ description: "A folder's path, the names from its root" }),
    status: z.enum(["CAN_BE_CREATED", "CAN_BE_UPDATED", "CAN_BE_REUSED", "CAN_BE_DELETED", "CREATED", "UPDATED", "REUSED", "DELETED", "UNCHANGED", "CONFLICT"]),
    changes: z
      .array(z.object({ member: z.string(), before: z.unknown().optional(), after: z.unknown().optional() }))
      .optional()
      .openapi({ description: "For an update: each member that changes, before and after" }),
    conflicts: z.array(z.string()).optional().openapi({ description: "For a CONFLICT: why the object cannot be written as the bundle says" }),
  })
  .openapi("ImportPlanEntry");

export const ImportPlanSchema = z
  .object({
    dryRun: z.boolean(),
    entries: z.array(PlanEntrySchema),
    users: z
      .array(z.object({ name: z.string(), mappedTo: z.string().optional() }))
      .openapi({ description: "Each user the bundle names, and the target's user that stands for it: the one of that name, else the importing user (none for the supervisor). An import creates no users." }),
  })
  .openapi("ImportPlan", { description: "One entry per object of the bundle (and with prune, per object of the account it lacks)." });
