/**
 * Materialized paths: the ids from the root down to the folder itself, each followed by a
 * slash, as "/<rootId>/<childId>/.../<selfId>/". Depth = number of ids - 1 (root = 0).
 *
 * The leading and trailing slashes make "is inside the subtree of F" a plain prefix test
 * (F's path is a prefix of every path in its subtree and of no other), without "/1/" matching
 * "/12/". Ids never contain a slash. In SQL, test the prefix with
 * `substr(materialized_path, 1, length(:prefix)) = :prefix` rather than LIKE, whose `_` and
 * `%` wildcards would need escaping.
 */

const WELL_FORMED_PATH = /^\/(?:[^/]+\/)+$/;

export function isWellFormedFolderPath(path: string): boolean {
  return WELL_FORMED_PATH.test(path);
}

export function folderPathOf(idsFromRoot: readonly string[]): string {
  if (idsFromRoot.length === 0) throw new Error("a folder path names at least the folder itself");
  for (const id of idsFromRoot) {
    if (id === "" || id.includes("/")) throw new Error(`folder id ${JSON.stringify(id)} cannot appear in a path`);
  }
  return `/${idsFromRoot.join("/")}/`;
}

export function rootFolderPath(rootId: string): string {
  return folderPathOf([rootId]);
}

export function childFolderPath(parentPath: string, childId: string): string {
  return folderPathOf([...idsInFolderPath(parentPath), childId]);
}

/** The ids root first, the folder itself last. */
export function idsInFolderPath(path: string): string[] {
  if (!isWellFormedFolderPath(path)) throw new Error(`malformed folder path ${JSON.stringify(path)}`);
  return path.slice(1, -1).split("/");
}

export function depthOfFolderPath(path: string): number {
  return idsInFolderPath(path).length - 1;
}

/** Is the folder at `path` the folder at `subtreeRootPath` or one of its descendants? */
export function isInSubtree(path: string, subtreeRootPath: string): boolean {
  return path.startsWith(subtreeRootPath);
}

/**
 * The new path of a folder of the moved subtree (the moved folder itself included) when the
 * folder at `movedFolderOldPath` goes under the parent at `newParentPath`: the moved folder's
 * old path is swapped for its new one at the front. Depths change by the same amount for the
 * whole subtree: depth(newParentPath) + 1 - depth(movedFolderOldPath).
 */
export function pathAfterMove(path: string, movedFolderOldPath: string, newParentPath: string): string {
  if (!isInSubtree(path, movedFolderOldPath)) throw new Error(`${path} is not in the subtree of ${movedFolderOldPath}`);
  const movedIds = idsInFolderPath(movedFolderOldPath);
  const movedFolderNewPath = childFolderPath(newParentPath, movedIds[movedIds.length - 1]);
  return movedFolderNewPath + path.slice(movedFolderOldPath.length);
}

/** How many levels the subtree reaches below the folder at `folderPath`: 0 for a leaf. Paths outside the subtree are ignored. */
export function subtreeHeight(folderPath: string, pathsOfSubtree: Iterable<string>): number {
  const ownDepth = depthOfFolderPath(folderPath);
  let height = 0;
  for (const path of pathsOfSubtree) {
    if (isInSubtree(path, folderPath)) height = Math.max(height, depthOfFolderPath(path) - ownDepth);
  }
  return height;
}

/**
 * Puts the rows loaded for a path's ids (in whatever order the database gave them) in chain
 * order, root first. Null when a member is missing: the path is stale or broken, and an
 * incomplete chain must never be resolved (it could skip the ancestor whose ACL governs).
 * `rows` may be given already indexed by id, when many chains are placed among the same rows.
 */
export function chainInPathOrder<Row extends { id: string }>(path: string, rows: readonly Row[] | ReadonlyMap<string, Row>): Row[] | null {
  const byId: ReadonlyMap<string, Row> = isIndexed(rows) ? rows : new Map(rows.map((row) => [row.id, row]));
  const chain: Row[] = [];
  for (const id of idsInFolderPath(path)) {
    const row = byId.get(id);
    if (row === undefined) return null;
    chain.push(row);
  }
  return chain;
}

function isIndexed<Row>(rows: readonly Row[] | ReadonlyMap<string, Row>): rows is ReadonlyMap<string, Row> {
  return !Array.isArray(rows);
}
