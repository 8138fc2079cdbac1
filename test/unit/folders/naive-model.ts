/**
 * A deliberately naive folder tree for the property tests: plain objects with parent
 * pointers and full ACLs for every principal, answered by walking one parent at a time.
 * It shares nothing with src/domain/folders except the type names, so agreement means
 * something.
 */
export type Permission = "READ" | "WRITE" | "CREATE" | "DELETE" | "ADMINISTER";
export type State = "INHERIT" | "EXPLICIT";

export const FIVE: readonly Permission[] = ["READ", "WRITE", "CREATE", "DELETE", "ADMINISTER"];
export const ANSWER_ORDER = ["READ", "WRITE", "CREATE", "DELETE", "ADMINISTER", "OWNER"] as const;

export interface NaiveFolder {
  id: string;
  parent: NaiveFolder | null;
  /** Only meaningful on roots: children belong to their root's project. */
  rootProjectId: string;
  ownerId: string;
  isPrivate: boolean;
  state: State;
  /** "USER:u1" or "GROUP:g0" -> what that principal is granted on this folder. */
  acl: Map<string, Set<Permission>>;
}

export interface NaiveCaller {
  userId: string;
  groupIds: readonly string[];
  isFolderAdmin: boolean;
}

export interface NaiveAnswer {
  permissions: string[];
  inherited: boolean;
}

export function userKey(userId: string): string {
  return `USER:${userId}`;
}

export function groupKey(groupId: string): string {
  return `GROUP:${groupId}`;
}

export function rootOf(folder: NaiveFolder): NaiveFolder {
  let current = folder;
  while (current.parent !== null) current = current.parent;
  return current;
}

export function projectOf(folder: NaiveFolder): string {
  return rootOf(folder).rootProjectId;
}

export function depthOf(folder: NaiveFolder): number {
  let depth = 0;
  for (let current = folder.parent; current !== null; current = current.parent) depth += 1;
  return depth;
}

export function naivePath(folder: NaiveFolder): string {
  const ids: string[] = [];
  for (let current: NaiveFolder | null = folder; current !== null; current = current.parent) ids.unshift(current.id);
  return "/" + ids.map((id) => id + "/").join("");
}

export function ancestorsAndSelf(folder: NaiveFolder): NaiveFolder[] {
  const chain: NaiveFolder[] = [];
  for (let current: NaiveFolder | null = folder; current !== null; current = current.parent) chain.unshift(current);
  return chain;
}

export function childrenOf(folder: NaiveFolder, all: readonly NaiveFolder[]): NaiveFolder[] {
  return all.filter((candidate) => candidate.parent === folder);
}

/** Levels below `folder`: 0 for a leaf. */
export function heightOf(folder: NaiveFolder, all: readonly NaiveFolder[]): number {
  let height = 0;
  for (const child of childrenOf(folder, all)) height = Math.max(height, 1 + heightOf(child, all));
  return height;
}

/** Is `candidate` the folder itself or below it? Walks up from the candidate. */
export function isSelfOrBelow(candidate: NaiveFolder, folder: NaiveFolder): boolean {
  for (let current: NaiveFolder | null = candidate; current !== null; current = current.parent) {
    if (current === folder) return true;
  }
  return false;
}

/** Whose ACL governs: walk up while the folder inherits and has a parent (a root always governs). */
export function aclSourceOf(folder: NaiveFolder): NaiveFolder {
  let source = folder;
  while (source.state === "INHERIT" && source.parent !== null) source = source.parent;
  return source;
}

export function naiveResolve(folder: NaiveFolder, caller: NaiveCaller): NaiveAnswer {
  const source = aclSourceOf(folder);
  const inherited = source !== folder;

  // The topmost PRIVATE folder above (or at) this one owns the subtree.
  let privateOwner: string | null = null;
  for (let current: NaiveFolder | null = folder; current !== null; current = current.parent) {
    if (current.isPrivate) privateOwner = current.ownerId;
  }
  if (privateOwner !== null) {
    return { permissions: privateOwner === caller.userId ? [...ANSWER_ORDER] : [], inherited };
  }

  const held = new Set<string>();
  if (caller.isFolderAdmin) FIVE.forEach((p) => held.add(p));
  for (const key of [userKey(caller.userId), ...caller.groupIds.map(groupKey)]) {
    for (const p of source.acl.get(key) ?? []) held.add(p);
  }
  if (folder.ownerId === caller.userId) {
    FIVE.forEach((p) => held.add(p));
    held.add("OWNER");
  }
  return { permissions: ANSWER_ORDER.filter((p) => held.has(p)), inherited };
}
