/** HTTP JSON connector: a URL answering with a JSON array of records. See ../README.md. */
import { secretValues } from "../../domain/connectors/parameters";
import type { ConnectorDefinition } from "../connector";
import { HttpJsonConnector } from "./http-json-connector";
import { HTTP_JSON_PARAMETERS, httpJsonHostProblems, httpJsonProblems } from "./parameters";

export const httpJsonConnector: ConnectorDefinition = {
  id: "http-json",
  label: "HTTP JSON",
  description: "An HTTP(S) address that answers GET with a JSON array of objects.",
  parameters: HTTP_JSON_PARAMETERS,
  // One table whose columns are inferred from the records.
  features: ["DESCRIBE", "PREVIEW", "INFERRED_COLUMNS"],
  checkParameters: (values, environment) => [...httpJsonProblems(values), ...httpJsonHostProblems(values, environment)],
  create: (values, environment) => new HttpJsonConnector(values, environment, secretValues(HTTP_JSON_PARAMETERS, values)),
};
