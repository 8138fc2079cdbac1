/** The account's own JSON datasets as a data store: one schema, "datasets", one table per dataset. See ../README.md. */
import type { ConnectorDefinition } from "../connector";
import { JsonDatasetsConnector } from "./json-datasets-connector";

export const jsonDatasetsConnector: ConnectorDefinition = {
  id: "json-datasets",
  label: "JSON datasets",
  description: 'The account\'s own JSON datasets (/api/json-datasets), each one a table of the schema "datasets".',
  parameters: [],
  features: ["LIST_SCHEMAS", "DESCRIBE", "PREVIEW", "INFERRED_COLUMNS"],
  storageType: { type: "JSON_DATASETS", subStorageType: "JSON_DATASETS" },
  internal: true,
  checkParameters: () => [],
  create: (_values, _environment, scope) => new JsonDatasetsConnector(scope),
};
