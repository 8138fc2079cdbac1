/**
 * Where a folder may go: under which parent it may be created, and where it may be moved.
 *
 * - Depth: root = 0, at most `maxDepth` (MAX_FOLDER_DEPTH unless configured).
 * - A move of folder F under a new parent P is refused, checked in this order, when
 *   - P is F or inside F's subtree: "CYCLE";
 *   - P belongs to another project: "OTHER_PROJECT" (children share their root's project
 *     and content type, so a folder never changes project);
 *   - depth(P) + 1 + height(F's subtree) > maxDepth: "TOO_DEEP".
 *   A root can therefore never be moved (under its own project it is a cycle). Making a
 *   folder a root is not a move.
 * - An accepted move rewrites the path of every folder of F's subtree: see pathAfterMove.
 */
import { MAX_FOLDER_DEPTH } from "./model";
import { depthOfFolderPath, isInSubtree } from "./paths";

export type MoveRefusal = "CYCLE" | "OTHER_PROJECT" | "TOO_DEEP";

export interface MovedFolder {
  id: string;
  path: string;
  projectId: string;
  /** Levels below it in its subtree: 0 for a leaf (see subtreeHeight). */
  subtreeHeight: number;
}

export interface NewParent {
  id: string;
  path: string;
  projectId: string;
}

/** Why the move may not happen, or null when it may. */
export function moveRefusal(moved: MovedFolder, newParent: NewParent, maxDepth: number = MAX_FOLDER_DEPTH): MoveRefusal | null {
  if (newParent.id === moved.id || isInSubtree(newParent.path, moved.path)) return "CYCLE";
  if (newParent.projectId !== moved.projectId) return "OTHER_PROJECT";
  if (depthOfFolderPath(newParent.path) + 1 + moved.subtreeHeight > maxDepth) return "TOO_DEEP";
  return null;
}

/** A new folder under a parent at `parentDepth` (null for a new root): "TOO_DEEP" or null. */
export function newFolderRefusal(parentDepth: number | null, maxDepth: number = MAX_FOLDER_DEPTH): "TOO_DEEP" | null {
  if (parentDepth === null) return null;
  return parentDepth + 1 > maxDepth ? "TOO_DEEP" : null;
}
