// Constants shared by the fixture servers (Node) and the connector tests (workerd).
// No imports, so both runtimes can load it. Types: fixture-data.d.mts.

export const SAMPLE_DATABASE = "analytics";
export const SAMPLE_USER = "postgres";
/** Superuser password of the test server (the demo script prints its own). */
export const SAMPLE_PASSWORD = "sample-superuser-pw-7Qx!";
/** A role that may read the sales and hr schemas only. */
export const READER_USER = "reader";
export const READER_PASSWORD = "reader-password-9Kd#";

/** A table whose name needs quoting in every way: a double quote, spaces, a dot, SQL. */
export const HOSTILE_TABLE_NAME = 'odd "name". x; DROP TABLE sales.customers; --';
export const HOSTILE_COLUMN_NAME = 'a "quoted" column';
export const ORDER_COUNT = 1500;

/** The value the JSON fixture server expects in `Authorization: Bearer …` on /secured.json. */
export const FIXTURE_BEARER_TOKEN = "fixture-token-s3cr3t";

/** Records with every inferred type, a null, and a member missing from one record. */
export const FIXTURE_RECORDS = [
  { id: 1, name: "Ada", price: 12.5, active: true, created: "2024-01-15T10:00:00Z", note: "first", tags: ["a"] },
  { id: 2, name: "Brendan", price: 3, active: false, created: "2024-02-01", note: null, tags: [] },
  { id: 3, name: "Chiara", price: 7.25, active: true, created: "2024-03-10T17:45:00+01:00", tags: ["b", "c"] },
];
