import { listOperations, loadDocument, type OpenApiDocument, type Operation } from "./document";
import { DocumentSchemas } from "./schemas";

/** The document, its route table and its compiled schemas: built once per test file (and context path), on first use. */
export interface Contract {
  doc: OpenApiDocument;
  operations: Operation[];
  schemas: DocumentSchemas;
  /** The CONTEXT_PATH of the Worker that served the document ("" for the test env's own). */
  contextPath: string;
}

const building = new Map<string, Promise<Contract>>();

export function loadContract(contextPath = ""): Promise<Contract> {
  let contract = building.get(contextPath);
  if (!contract) {
    contract = loadDocument(contextPath).then((doc) => ({ doc, operations: listOperations(doc), schemas: new DocumentSchemas(doc), contextPath }));
    building.set(contextPath, contract);
  }
  return contract;
}
