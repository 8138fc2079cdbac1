import { defineFuzzFile } from "./harness/fuzz-suite";

// Schema-driven fuzz of every documented operation, share 1 of 2 (see harness/fuzz-suite.ts).
await defineFuzzFile(0);
