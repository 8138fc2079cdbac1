/**
 * The pure rules of the library folder tree. No HTTP, database or runtime APIs here.
 *
 * Folders form trees inside one account: `parent_id` plus a materialized path. A root starts
 * a project; children inherit their parent's project and content type. Root = depth 0, at
 * most MAX_FOLDER_DEPTH (6) unless configured.
 *
 * Effective permissions (permissions.ts):
 * - PRIVATE subtree: its owner gets READ, WRITE, CREATE, DELETE, ADMINISTER and OWNER;
 *   nobody else gets anything, not even folder administrators.
 * - Otherwise the union of: all five for folder administrators (ROLE_ADMINISTER_FOLDERS,
 *   implied by ROLE_ADMIN); the ACL entries naming the caller or one of its groups on the
 *   folder's ACL source (itself when root or EXPLICIT, else the nearest EXPLICIT ancestor,
 *   a root counting as explicit); all five plus OWNER for the creator of the folder itself.
 * - permission_inherited: the ACL source is an ancestor (false for roots and EXPLICIT folders).
 * - Fixed answer order: READ, WRITE, CREATE, DELETE, ADMINISTER, OWNER.
 *
 * Operations (permissions.ts, FOLDER_OPERATION_NEEDS): a folder the caller may not READ is
 * not found; creating inside needs CREATE, editing WRITE, a move WRITE on the folder and CREATE
 * on the new parent, filing items WRITE, deleting DELETE; ACLs need mayChangeFolderAcl.
 *
 * ACLs (acl.ts): a new root is seeded with its creator holding all five; a new EXPLICIT child
 * with the ACL it would have inherited plus its creator holding all five (so an EXPLICIT child
 * starts with the same permissions an INHERIT one would give); a new INHERIT child with nothing.
 * INHERIT -> EXPLICIT copies the inherited ACL; EXPLICIT -> INHERIT drops the own ACL;
 * a root's ACL is untouched by state changes.
 *
 * Paths and moves (paths.ts, placement.ts): "/<rootId>/.../<selfId>/", depth = ids - 1.
 * A move of F under P is refused as CYCLE (P is F or below F), OTHER_PROJECT, or TOO_DEEP
 * (depth(P) + 1 + height(F) > max); an accepted one rewrites the path prefix of F's subtree.
 *
 * Visibility (breadcrumb.ts): listings show only folders the caller may READ (child_count
 * and item_count stay unfiltered totals); a breadcrumb skips unreadable members and says
 * it was truncated.
 */
export type { AclEntry, EffectivePermission, FolderCaller, FolderPermission, InheritanceState, PrincipalType } from "./model";
export { EFFECTIVE_PERMISSION_ORDER, FOLDER_PERMISSIONS, MAX_FOLDER_DEPTH, inAnswerOrder, isPrivateFolder, namesCaller } from "./model";
export type { FolderAccessFacts, InheritedAccess, ResolvedFolder } from "./permissions";
export {
  folderCallerOf,
  hasFolderPermission,
  FOLDER_OPERATION_NEEDS,
  mayChangeFolderAcl,
  mayCreateRootFolders,
  mayDoOnFolder,
  mayReadFolder,
  resolveChain,
  resolveChild,
  resolveChildren,
  resolveFromChain,
} from "./permissions";
export type { FolderOperation } from "./permissions";
export type { InheritanceChange, InheritanceChangePlan, NewFolderAclPlan } from "./acl";
export { aclAfterInheritanceChange, aclForNewFolder, aclPlanForNewFolder, creatorGrants, inheritanceChangePlan, withoutDuplicates } from "./acl";
export {
  chainInPathOrder,
  childFolderPath,
  depthOfFolderPath,
  folderPathOf,
  idsInFolderPath,
  isInSubtree,
  isWellFormedFolderPath,
  pathAfterMove,
  rootFolderPath,
  subtreeHeight,
} from "./paths";
export type { MovedFolder, MoveRefusal, NewParent } from "./placement";
export { moveRefusal, newFolderRefusal } from "./placement";
export type { Breadcrumb } from "./breadcrumb";
export { visibleBreadcrumb } from "./breadcrumb";
