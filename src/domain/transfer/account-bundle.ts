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

/** A copy of `list` sorted by the key (a string, or a tuple of strings compared in turn). */
export function sortedBy<T>(list: readonly T[], key: (t: T) => string | readonly string[]): T[] {
  const keyed = list.map((t) => ({ t, k: ([] as string[]).concat(key(t)) }));
  keyed.sort((x, y) => {
    for (let i = 0; i < Math.max(x.k.length, y.k.length); i++) {
      const d = compareText(x.k[i] ?? "", y.k[i] ?? "");
      if (d !== 0) return d;
    }
    return 0;
  });
  return keyed.map((e) => e.t);
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

/** A principal of a grant by name: USER and GROUP ids become the user's or group's name; undefined when it names neither. */
export function principalNamer(users: readonly { id: string; name: string }[], groups: readonly { id: string; name: string }[]) {
  const names = new Map<string, string>([...users.map((u) => [`USER:${u.id}`, u.name] as const), ...groups.map((g) => [`GROUP:${g.id}`, g.name] as const)]);
  return (type: string, id: string): string | undefined => names.get(`${type}:${id}`);
}

/** Drops members that are null or undefined, so that an absent optional member and a null one read the same. */
export function withoutEmpty<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined)) as T;
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
