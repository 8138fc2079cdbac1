import { z } from "@hono/zod-openapi";
import { EFFECTIVE_PERMISSION_ORDER, FOLDER_PERMISSIONS } from "../../domain/folders";
import { auditMembers, IdParamSchema } from "../../lib/openapi";
import { nameString, textString } from "../../lib/text-schemas";

export const CONTENT_TYPES = ["DASHBOARDS", "REPORTS"] as const;
export const FOLDER_TYPES = ["CONNECTIONS", "SOURCES", "VISUALS", "DASHBOARDS", "REPORTS", "PRIVATE", "CUSTOM"] as const;
export const ITEM_TYPE_OF_CONTENT = { DASHBOARDS: "DASHBOARD", REPORTS: "REPORT" } as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

const ContentTypeSchema = z.enum(CONTENT_TYPES).openapi({ description: "The library: dashboards or reports." });
const InheritanceStateSchema = z.enum(["INHERIT", "EXPLICIT"]).openapi({
  description: "INHERIT: the nearest EXPLICIT ancestor's ACL governs (a root's own ACL always does). EXPLICIT: the folder's own ACL.",
});
const PermissionSchema = z.enum(FOLDER_PERMISSIONS);

export const FolderNodeSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    parent_id: z.string().nullable().openapi({ description: "Null for a root folder." }),
    materialized_path: z
      .string()
      .nullable()
      .openapi({ description: 'The ids from the root down to the folder, each followed by a slash: "/<rootId>/.../<id>/". Never null here.' }),
    depth: z.number().int().openapi({ description: "Root = 0; at most MAX_FOLDER_DEPTH (6 by default)." }),
    child_count: z.number().int().openapi({ description: "Direct subfolders, all of them: not pruned by the caller's READ, so it can exceed what /children lists." }),
    item_count: z.number().int().openapi({ description: "Dashboards or reports filed directly in the folder, all of them." }),
    folder_type: z.enum(FOLDER_TYPES),
    content_type: ContentTypeSchema.nullable().openapi({ description: "DASHBOARDS or REPORTS (the library); null when untagged (never, for folders made here)." }),
    project_id: z.string().openapi({ description: "The project: started by the root, shared by its whole tree." }),
    visibility: z.enum(["PRIVATE", "CUSTOM"]).openapi({ description: "PRIVATE in a user's private tree (visible to that user alone), else CUSTOM." }),
    inheritance_state: InheritanceStateSchema,
    project_type: z.enum(["DEFAULT", "GLOBAL", "CUSTOM", "PERSONAL", "LIBRARY_CUSTOM"]).openapi({
      description: "LIBRARY_CUSTOM for a project started by POST, PERSONAL for a user's private tree.",
    }),
    permission_inherited: z.boolean().openapi({ description: "True when the ACL in force is the nearest EXPLICIT ancestor's; false for a root and an EXPLICIT folder." }),
    permissions: z.array(z.enum(EFFECTIVE_PERMISSION_ORDER as [string, ...string[]])).openapi({
      description: "The caller's effective permissions, in the order READ, WRITE, CREATE, DELETE, ADMINISTER, OWNER.",
    }),
    expanded: z.boolean().openapi({ description: "Whether the caller has the folder expanded (PUT /api/folders/tree-state); never null." }),
    ...auditMembers,
  })
  .openapi("FolderNode");

export const FolderTreeSchema = z.array(FolderNodeSchema).openapi("FolderTree");

export const TreeQuerySchema = z.object({
  content_type: ContentTypeSchema.default("DASHBOARDS").openapi({ description: "The library; DASHBOARDS when omitted." }),
});

export const FolderCreateSchema = z
  .strictObject({
    folder_name: nameString(100).optional().openapi({ description: "Required, here or as `name`." }),
    name: nameString(100)
      .optional()
      .openapi({ description: "Alias: the folder's representation (FolderNode) calls `folder_name` `name`. Both may be given only with the same value." }),
    description: textString(1024).nullable().optional(),
    parent_id: z.string().min(1).max(64).nullable().optional().openapi({ description: "The parent folder; none starts a new project (a root)." }),
    content_type: ContentTypeSchema.optional().openapi({ description: "Required for a root; a child takes its parent's (naming another is a 400)." }),
    inheritance_state: InheritanceStateSchema.default("INHERIT"),
    folder_type: z.enum(FOLDER_TYPES).default("CUSTOM").openapi({
      description: "CUSTOM, or the library's own type (DASHBOARDS, REPORTS). PRIVATE trees are made by the service: each user's private root appears in its tree.",
    }),
  })
  .openapi("FolderCreate", { example: { folder_name: "Sales", description: "Dashboards of the sales team", content_type: "DASHBOARDS" } });

export const FolderPatchSchema = z
  .strictObject({
    folder_name: nameString(100).optional(),
    name: nameString(100)
      .optional()
      .openapi({ description: "Alias: the folder's representation (FolderNode) calls `folder_name` `name`. Both may be given only with the same value." }),
    description: textString(1024).nullable().optional(),
    inheritance_state: InheritanceStateSchema.optional().openapi({ description: "Needs ADMINISTER on the folder or ROLE_PERMISSION_FOLDERS." }),
    parent_id: z.string().min(1).max(64).optional().openapi({
      description: "Moves the folder with its subtree: needs WRITE on it and CREATE on the new parent, in the same project, not into its own subtree, not past the depth limit.",
    }),
  })
  .openapi("FolderPatch");

export const FolderIdParamSchema = IdParamSchema;

export const FolderPageQuerySchema = z.object({
  page_size: z.coerce.number().int().min(1).max(200).default(50).openapi({ description: "Entries per page, 1 to 200 (default 50)." }),
  cursor: z.string().max(2048).optional().openapi({ description: "Opaque: the previous page's next_cursor." }),
});

const nextCursor = z.string().nullable().openapi({ description: "The cursor of the next page; null on the last one." });

export const FolderChildrenPageSchema = z.strictObject({ content: z.array(FolderNodeSchema), next_cursor: nextCursor }).openapi("FolderChildrenPage");

export const FolderItemSchema = z
  .strictObject({
    item_type: z.enum(["DASHBOARD", "REPORT"]),
    item_id: z.string(),
    name: z.string(),
    folder_id: z.string(),
    filed_by_user_id: z.string(),
    filed_date: z.string().openapi({ format: "date-time" }),
  })
  .openapi("FolderItem");

export const FolderContentsPageSchema = z.strictObject({ content: z.array(FolderItemSchema), next_cursor: nextCursor }).openapi("FolderContentsPage");

export const FolderPathSchema = z
  .strictObject({
    content: z.array(FolderNodeSchema).openapi({ description: "The folders from the root down to this one that the caller may READ." }),
    truncated: z.boolean().openapi({ description: "True when some ancestors were left out because the caller may not READ them." }),
  })
  .openapi("FolderPath");

export const TreeStateSchema = z
  .strictObject({
    folder_ids: z.array(z.string().min(1).max(64)).max(500).openapi({ description: "Every folder the caller has expanded (at most 500), each one it may READ; replaces the previous set." }),
  })
  .openapi("FolderTreeState", { example: { folder_ids: [] } });

const AclEntrySchema = z.strictObject({
  principalType: z.enum(["USER", "GROUP"]),
  principalId: z.string().min(1).max(64).openapi({ description: "A user or group of the folder's account." }),
  permissions: z.array(PermissionSchema).min(1).max(FOLDER_PERMISSIONS.length),
});

export const FolderAclWriteSchema = z
  .strictObject({ content: z.array(AclEntrySchema).max(200).openapi({ description: "One entry per principal (at most 200)." }) })
  .openapi("FolderAclWrite");

export const FolderAclSchema = z
  .strictObject({
    content: z.array(AclEntrySchema),
    permission_inherited: z.boolean().openapi({ description: "True when the ACL in force is an ancestor's (the folder inherits); PUT makes it the folder's own." }),
  })
  .openapi("FolderAcl");

/** Ids of dashboards and reports as other services issue them (UUIDs, numbers, slugs): one plain path segment. */
const ITEM_ID = /^[A-Za-z0-9_][A-Za-z0-9_.:~-]{0,254}$/;

export const ItemParamSchema = IdParamSchema.extend({
  itemType: z.string().min(1).max(64).openapi({
    param: { name: "itemType", in: "path" },
    description: "DASHBOARD (in a DASHBOARDS folder) or REPORT (in a REPORTS folder).",
    example: "DASHBOARD",
  }),
  itemId: z
    .string()
    .regex(ITEM_ID, "Letters, digits and _ . : ~ -, starting with a letter, a digit or _, at most 255")
    .openapi({ param: { name: "itemId", in: "path" }, description: "The item's id where it is managed.", example: "7b0c5b1e-0d1a-4e8e-9f55-3f4c5d6e7f80" }),
});

export const ItemWriteSchema = z.strictObject({ name: nameString(255) }).openapi("FolderItemWrite");
