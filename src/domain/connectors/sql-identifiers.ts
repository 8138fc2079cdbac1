/**
 * Quoting of SQL identifiers (schema, table and column names) for PostgreSQL.
 *
 * postgres.js's own identifier helper, sql(name), turns every "." into '"."', so a table
 * named "a.b" would be read as table b of schema a. Names are quoted here instead, whole.
 */

/** "odd ""name""" for odd "name": doubles the quotes, wraps the whole name in quotes. */
export function quoteIdentifier(name: string): string {
  if (name.length === 0 || name.includes("\u0000")) {
    throw new RangeError("An SQL identifier must be non-empty and contain no NUL character.");
  }
  return `"${name.replace(/"/g, '""')}"`;
}

/** "schema"."table" */
export function qualifiedName(schema: string, table: string): string {
  return `${quoteIdentifier(schema)}.${quoteIdentifier(table)}`;
}
