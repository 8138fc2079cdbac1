import { defineRoute, EXPORT_PASSPHRASE_PARAMETER, jsonBody, jsonContent } from "../../lib/openapi";
import { ExportQuerySchema, ImportQuerySchema, ImportResultSchema, SourcesExportSchema, SourcesMigrationSchema } from "./migration.schemas";

const tags = ["Sources"];

/** A bundle with one source and no connection (a connection's id is made by the installation): what the reference page prefills. */
const IMPORT_EXAMPLE = {
  version: "1",
  importSettings: { globalLevel: { ifExists: "REUSE", ifDoesNotExist: "CREATE" } },
  connections: [],
  sources: [
    {
      definition: { id: "exported-source-id", name: "Imported flights", description: "Flights, imported", connectionId: null, features: [], enabled: true },
      fields: [{ name: "price", origin: { type: "NATIVE", nativeOrigin: { originalName: "price", originalType: "DECIMAL(10,2)" } } }],
      customMetrics: [{ name: "revenue", expression: "sum(price)" }],
      security: { fieldsSecurity: { enabled: false }, customMetricsSecurity: { enabled: false } },
    },
  ],
};

export const exportSources = defineRoute({
  method: "get",
  path: "/export",
  tags,
  summary: "Export sources with their fields, custom metrics, security settings and connections (READ on each, and ROLE_MANAGE_CONNECTIONS)",
  description:
    "The reference product's SourcesMigrationResource: `version`, the sources and the connections they use. Secret parameter values are never " +
    "exported in clear: without X-Export-Passphrase they are left out, with it they travel sealed under it (`sealedValue`, `secretsSealing`). " +
    "Account-specific members (account, owner, grants, folder, audit members) are left out. A source of another account, or none with the id, is a 404.",
  access: { kind: "privilege", privilege: "ROLE_MANAGE_CONNECTIONS" },
  objectPermission: "source:READ",
  errors: ["NOT_FOUND", "FORBIDDEN", "INVALID_PASSPHRASE", "CONNECTION_SECRETS_UNAVAILABLE"],
  parameters: [EXPORT_PASSPHRASE_PARAMETER],
  request: { query: ExportQuerySchema },
  responses: { 200: jsonContent(SourcesExportSchema, "The bundle") },
});

export const importSources = defineRoute({
  method: "post",
  path: "/import",
  tags,
  summary: "Import an export bundle: sources and connections matched by name, created, reused or updated as the import settings say (all or nothing)",
  description:
    "One ImportedResource per object of the bundle. Every object is applied or none: when one cannot be (its problems; WARNINGs count unless " +
    "`suppressWarnings=true`), nothing is written and the answer is 400 VALIDATION_FAILED naming each problem; `dryRun=true` answers each object's " +
    "status (CAN_BE_CREATED, CAN_BE_REUSED, CAN_BE_UPDATED or FAILED with its problems) and writes nothing. Creating or updating a connection needs " +
    "ROLE_MANAGE_CONNECTIONS, updating a source WRITE on it. Sealed secret values (`sealedValue`) are opened with X-Export-Passphrase and sealed " +
    "again with this service's key.",
  access: { kind: "privilege", privilege: "ROLE_CREATE_SOURCES" },
  problemLevels: ["ERROR", "WARNING"],
  errors: ["ACCOUNT_FORBIDDEN", "QUOTA_EXCEEDED", "CONCURRENT_UPDATE", "CONNECTION_SECRETS_UNAVAILABLE", "INVALID_PASSPHRASE"],
  parameters: [EXPORT_PASSPHRASE_PARAMETER],
  request: { query: ImportQuerySchema, body: jsonBody(SourcesMigrationSchema, undefined, IMPORT_EXAMPLE) },
  responses: { 200: jsonContent(ImportResultSchema, "What became of each object") },
});
