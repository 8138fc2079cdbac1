/**
 * The whole-account bundle (GET /api/accounts/{accountId}/export, docs/export-import.md): the
 * rules that make it mean the same anywhere and come out byte for byte the same twice. No
 * database or HTTP here: the handler reads the rows and passes them in.
 */

/** Bumped when a member changes meaning or goes; an importer refuses a version it does not know. */
export const ACCOUNT_BUNDLE_FORMAT_VERSION = 1;
export const ACCOUNT_BUNDLE_SERVICE = "analytics-metadata-admin-api";

/** Code-point order (never locale order, which differs between runtimes and releases). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A copy of `list` sorted by the key (a string, or a tuple of strings compared in turn). An import
 * sorts every object of its target on each request: a string key is compared as it is, with no
 * tuple made of it per object.
 */
export function sortedBy<T>(list: readonly T[], key: (t: T) => string | readonly string[]): T[] {
  if (list.length < 2) return list.slice();
  const keyed = list.map((t) => ({ t, k: key(t) }));
  keyed.sort((x, y) => compareKeys(x.k, y.k));
  return keyed.map((e) => e.t);
}

function compareKeys(a: string | readonly string[], b: string | readonly string[]): number {
  if (typeof a === "string" && typeof b === "string") return compareText(a, b);
  const x = typeof a === "string" ? [a] : a;
  const y = typeof b === "string" ? [b] : b;
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = compareText(x[i] ?? "", y[i] ?? "");
    if (d !== 0) return d;
  }
  return 0;
}

interface TreeRow {
  id: string;
  parentId: string | null;
  name: string;
}

/**
 * Each folder's path: the names from its root down to itself. A list of names rather than one
 * string joined by "/", since a folder's name may itself hold a "/".
 */
export function folderPaths(rows: readonly TreeRow[]): Map<string, string[]> {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const paths = new Map<string, string[]>();
  const pathOf = (row: TreeRow, seen: Set<string>): string[] => {
    const known = paths.get(row.id);
    if (known) return known;
    const parent = row.parentId === null ? undefined : byId.get(row.parentId);
    // A parent missing or a cycle (neither can be stored) ends the path at this folder.
    const path = parent && !seen.has(parent.id) ? [...pathOf(parent, seen.add(row.id)), row.name] : [row.name];
    paths.set(row.id, path);
    return path;
  };
  rows.forEach((r) => pathOf(r, new Set()));
  return paths;
}

/**
 * A principal of a grant by name: USER and GROUP ids become the user's or group's name; undefined
 * when it names neither. Its index is made at the first grant named (an account without grants, or
 * without grants to groups, makes none of its thousands of groups').
 */
export function principalNamer(users: readonly { id: string; name: string }[], groups: readonly { id: string; name: string }[]) {
  const userName = namerOf(users);
  const groupName = namerOf(groups);
  return (type: string, id: string): string | undefined => (type === "USER" ? userName(id) : type === "GROUP" ? groupName(id) : undefined);
}

/** The name of the row with an id (undefined for none), its index made at the first lookup. */
export function namerOf(rows: readonly { id: string; name: string }[]): (id: string) => string | undefined {
  let names: Map<string, string> | undefined;
  const index = () => {
    names = new Map();
    for (const row of rows) names.set(row.id, row.name);
    return names;
  };
  return (id) => (names ?? index()).get(id);
}

/** Drops members that are null or undefined, so that an absent optional member and a null one read the same. */
export function withoutEmpty<T extends Record<string, unknown>>(value: T): T {
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (value[key] !== null && value[key] !== undefined) kept[key] = value[key];
  return kept as T;
}

/**
 * Canonical JSON: object members in code-point order of their names at every depth, arrays as
 * given, no whitespace. Values in `raw` (keyed by the object that stands for them in `value`) are
 * written as their stored JSON text, untouched: a dataset's data keeps its numbers and spacing as
 * they were sent.
 */
export function canonicalJson(value: unknown, raw: ReadonlyMap<object, string> = new Map()): string {
  const out: string[] = [];
  const write = (v: unknown): void => {
    if (v !== null && typeof v === "object" && raw.has(v)) {
      out.push(raw.get(v)!);
    } else if (Array.isArray(v)) {
      out.push("[");
      v.forEach((item, i) => {
        if (i > 0) out.push(",");
        write(item === undefined ? null : item);
      });
      out.push("]");
    } else if (v !== null && typeof v === "object") {
      out.push("{");
      let first = true;
      for (const key of Object.keys(v).sort(compareText)) {
        const member = (v as Record<string, unknown>)[key];
        if (member === undefined) continue;
        if (!first) out.push(",");
        first = false;
        out.push(JSON.stringify(key), ":");
        write(member);
      }
      out.push("}");
    } else {
      out.push(JSON.stringify(v) ?? "null");
    }
  };
  write(value);
  return out.join("");
}
