import { z } from "@hono/zod-openapi";
import { ACCOUNT_BUNDLE_FORMAT_VERSION, ACCOUNT_BUNDLE_SERVICE } from "../../domain/transfer/account-bundle";
import { FOLDER_PERMISSIONS } from "../../domain/folders/model";
import { nameString, textString } from "../../lib/text-schemas";
import { QuotaTypeSchema } from "../quotas/quotas.schemas";

/**
 * The whole-account bundle (docs/export-import.md). Each object is the API's own representation
 * of it less ids, account ids, revisions, audit members and what the service derives; each
 * reference is a name (a folder's, a path of names). Members that are null are left out.
 * Free-form parts (a field's or metric's members, a view's definition) are those of their own
 * resources' schemas, documented there.
 */
const FreeForm = z.record(z.string(), z.unknown());
const Grantee = { principalType: z.enum(["USER", "GROUP"]), principalName: z.string().openapi({ description: "The user's or group's name" }) };
const FolderPath = z.array(nameString(100)).min(1).max(64).openapi({ description: "The folder's path: the names from its root down to it" });

const BundledGroup = z.strictObject({ name: z.string(), description: z.string().optional(), privileges: z.array(z.string()), builtIn: z.boolean() }).openapi("AccountBundleGroup");
const BundledUser = z
  .strictObject({ name: z.string(), roles: z.array(z.string()), groups: z.array(z.string()).openapi({ description: "The groups it belongs to, by name" }) })
  .openapi("AccountBundleUser", { description: "A user, named: never its password or any credential." });
const BundledConnection = z
  .strictObject({
    name: nameString(255),
    connectionType: nameString(255).openapi({ description: "The connection type, by name" }),
    type: nameString(64),
    subStorageType: nameString(64),
    disabled: z.boolean(),
    folder: FolderPath.optional(),
    allParameters: z.array(
      z.strictObject({
        key: nameString(255),
        value: z.string().max(8192).optional().openapi({ description: "Absent for a secret parameter: never exported in clear" }),
        sealedValue: z.string().max(16_384).optional().openapi({ description: "A secret's value sealed under X-Export-Passphrase (see `secretsSealing`), when the export was sent one" }),
        systemAccess: z.boolean(),
      }),
    ),
  })
  .openapi("AccountBundleConnection");
const BundledSource = z
  .strictObject({
    name: z.string(),
    description: z.string().optional(),
    connection: z.string().optional().openapi({ description: "The source's connection, by name" }),
    features: z.array(z.string()),
    enabled: z.boolean(),
    owner: z.string().optional().openapi({ description: "The owning user, by name" }),
    security: z.strictObject({ fieldsSecurity: z.strictObject({ enabled: z.boolean() }), customMetricsSecurity: z.strictObject({ enabled: z.boolean() }) }),
    permissions: z.array(z.strictObject({ ...Grantee, permission: z.enum(["READ", "WRITE"]) })),
    fields: z.array(FreeForm).openapi({ description: "As GET answers a field, less audit and derived members; a derived field's calendar as `calendarName`" }),
    customMetrics: z.array(FreeForm),
  })
  .openapi("AccountBundleSource");
const BundledCalendar = z
  .strictObject({ type: z.enum(["MONTH_SHIFT", "FISCAL_445"]), name: z.string(), monthShift: z.number().int().optional(), fiscal445: FreeForm.optional() })
  .openapi("AccountBundleCalendar");
const BundledDataset = z
  .strictObject({ name: z.string(), description: z.string().optional(), data: z.unknown().openapi({ description: "The data, as stored: byte for byte what was sent" }) })
  .openapi("AccountBundleJsonDataset");
const BundledFolder = z
  .strictObject({
    path: FolderPath,
    description: textString(1024).optional(),
    folderType: z.string(),
    contentType: z.string().optional(),
    projectType: z.string(),
    visibility: z.string(),
    inheritanceState: z.string(),
    owner: z.string().optional(),
    permissions: z.array(z.strictObject({ ...Grantee, permissions: z.array(z.enum(FOLDER_PERMISSIONS)) })).openapi({ description: "The folder's own ACL (not what it inherits)" }),
    items: z.array(z.strictObject({ itemType: z.enum(["DASHBOARD", "REPORT"]), itemId: z.string().min(1).max(255), name: nameString(255) })),
  })
  .openapi("AccountBundleFolder");
const BundledView = z
  .strictObject({
    name: nameString(255),
    description: textString(1024).optional(),
    enabled: z.boolean(),
    source: z.string().optional().openapi({ description: "The view's source, by name" }),
    definition: FreeForm,
    storageSettings: FreeForm.optional().openapi({ description: "As written, with `targetStorage.connectionName` for `targetStorage.connectionId`" }),
  })
  .openapi("AccountBundleMaterializedView");

export const AccountBundleSchema = z
  .strictObject({
    formatVersion: z.literal(ACCOUNT_BUNDLE_FORMAT_VERSION),
    service: z.literal(ACCOUNT_BUNDLE_SERVICE),
    account: z.strictObject({ name: z.string() }),
    secretsSealing: z
      .strictObject({ kdf: z.literal("PBKDF2-HMAC-SHA-256"), iterations: z.number().int(), salt: z.string(), cipher: z.literal("AES-256-GCM") })
      .optional()
      .openapi({ description: "How the `sealedValue`s were sealed (only with X-Export-Passphrase): the key is derived from the passphrase over this salt" }),
    groups: z.array(BundledGroup),
    users: z.array(BundledUser),
    quota: z.strictObject({ quotas: z.array(z.strictObject({ type: QuotaTypeSchema, limit: z.number().int() })) }).optional(),
    connections: z.array(BundledConnection),
    calendars: z.array(BundledCalendar),
    sources: z.array(BundledSource),
    jsonDatasets: z.array(BundledDataset),
    folders: z.array(BundledFolder),
    materializedViews: z.array(BundledView),
  })
  .openapi("AccountBundle", {
    description:
      "Everything an account defines, by name: canonical JSON (members in code-point order, collections sorted by name or path), so an unchanged account exports the same bytes.",
  });
