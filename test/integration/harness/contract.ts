import { listOperations, loadDocument, type OpenApiDocument, type Operation } from "./document";
import { DocumentSchemas } from "./schemas";

/** The document, its route table and its compiled schemas: built once per test file, on first use. */
export interface Contract {
  doc: OpenApiDocument;
  operations: Operation[];
  schemas: DocumentSchemas;
}

let building: Promise<Contract> | undefined;

export function loadContract(): Promise<Contract> {
  building ??= loadDocument().then((doc) => ({ doc, operations: listOperations(doc), schemas: new DocumentSchemas(doc) }));
  return building;
}
