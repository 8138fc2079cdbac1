/**
 * The plan of a whole-account import (POST /api/accounts/{accountId}/import, docs/export-import.md):
 * a pure function of the bundle received and the target's own bundle, built by the export's code
 * from the target's rows. Objects are matched by type and name (a folder by its path) and compared
 * as canonical JSON, so an import of what the target already holds is UNCHANGED throughout. No
 * database or HTTP here.
 */
import { MAX_FOLDER_DEPTH } from "../folders/model";
import { canonicalJson, compareText } from "./account-bundle";

export type ImportObjectType = "group" | "quota" | "connection" | "calendar" | "source" | "jsonDataset" | "folder" | "materializedView";

export type ImportStatus =
  | "CAN_BE_CREATED"
  | "CAN_BE_UPDATED"
  | "CAN_BE_REUSED"
  | "CAN_BE_DELETED"
  | "CREATED"
  | "UPDATED"
  | "REUSED"
  | "DELETED"
  | "UNCHANGED"
  | "CONFLICT";

export interface MemberChange {
  member: string;
  before?: unknown;
  after?: unknown;
}

export interface PlanEntry {
  type: ImportObjectType;
  name?: string;
  path?: string[];
  status: ImportStatus;
  /** For an update: the members that change, before and after. */
  changes?: MemberChange[];
  /** For a CONFLICT: why. */
  conflicts?: string[];
}

type Obj = Record<string, unknown>;

/** The parts of a bundle the planner reads (the AccountBundle schema's shape, loosely typed). */
export interface PlannedBundle {
  groups: readonly Obj[];
  quota?: Obj;
  connections: readonly Obj[];
  calendars: readonly Obj[];
  sources: readonly Obj[];
  jsonDatasets: readonly Obj[];
  folders: readonly Obj[];
  materializedViews: readonly Obj[];
}

export interface PlanContext {
  /** With prune, objects of the target absent from the bundle are deleted (never a built-in group). */
  prune: boolean;
  /** The target account's user names: owners and grants name users, which an import never creates. */
  targetUsers: ReadonlySet<string>;
  /** Who stands for an owner the target lacks: the importing user, or for the supervisor the target's first administrator; undefined: nobody (no owner). */
  importer: string | undefined;
  /** How deep a folder may sit below its root (the configured MAX_FOLDER_DEPTH; 6 by default). */
  maxFolderDepth?: number;
  /** By connection name, the secret parameters the bundle gives a value for (sealed under the passphrase, then opened). */
  givenSecrets?: ReadonlyMap<string, ReadonlySet<string>>;
}

/** The section of a bundle each type lives in, and how an object of it is keyed. */
export const SECTIONS: readonly { type: ImportObjectType; section: keyof PlannedBundle }[] = [
  { type: "group", section: "groups" },
  { type: "quota", section: "quota" },
  { type: "calendar", section: "calendars" },
  // Folders before connections: a connection names its folder.
  { type: "folder", section: "folders" },
  { type: "connection", section: "connections" },
  { type: "source", section: "sources" },
  { type: "jsonDataset", section: "jsonDatasets" },
  { type: "materializedView", section: "materializedViews" },
];

const listOf = (bundle: PlannedBundle, section: keyof PlannedBundle): readonly Obj[] => {
  const value = bundle[section] as Obj | readonly Obj[] | undefined;
  return value === undefined ? [] : Array.isArray(value) ? value : [value as Obj];
};

/** An object's key within its type: its name, a folder's content type and path, the quota's fixed key. */
export function keyOf(type: ImportObjectType, object: Obj): string {
  if (type === "quota") return "quota";
  if (type === "folder") return folderKey(object.contentType, object.path as string[]);
  return String(object.name);
}

export const folderKey = (contentType: unknown, path: readonly string[]) => JSON.stringify([contentType ?? null, path]);

/** The library each content type files: its items' type. */
export const ITEM_TYPE_OF_CONTENT: Readonly<Record<string, string>> = { DASHBOARDS: "DASHBOARD", REPORTS: "REPORT" };

/**
 * Where a bundle names a user as an owner, the target's user of that name, or else the importer
 * (none for the supervisor): what the import will store, so what the diff compares.
 */
export function withOwnersMapped(bundle: PlannedBundle, context: Pick<PlanContext, "targetUsers" | "importer">): PlannedBundle {
  // A folder always has an owner (a source may have none): one the bundle leaves out is the importer.
  const owner = (o: Obj, always = false): Obj => {
    if (o.owner === undefined && !always) return o;
    const { owner: name, ...rest } = o;
    const mapped = name !== undefined && context.targetUsers.has(String(name)) ? String(name) : context.importer;
    return mapped === undefined ? rest : { ...rest, owner: mapped };
  };
  return { ...bundle, sources: bundle.sources.map((o) => owner(o)), folders: bundle.folders.map((f) => owner(f, true)) };
}

/** The members of two versions of an object that differ (compared as canonical JSON). */
export function changedMembers(before: Obj, after: Obj): MemberChange[] {
  const members = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort(compareText);
  return members.flatMap((member) =>
    canonicalJson(before[member]) === canonicalJson(after[member]) ? [] : [{ member, ...(member in before && { before: before[member] }), ...(member in after && { after: after[member] }) }],
  );
}

/** The plan of importing `wanted` into a target whose own bundle is `current`: dry-run statuses (CAN_BE_...). */
export function planImport(wanted: PlannedBundle, current: PlannedBundle, context: PlanContext): PlanEntry[] {
  const mapped = withOwnersMapped(wanted, context);
  const entries: PlanEntry[] = [];
  const objectOf = new Map<PlanEntry, Obj>();
  for (const { type, section } of SECTIONS) {
    const currentByKey = new Map(listOf(current, section).map((o) => [keyOf(type, o), o]));
    const wantedKeys = new Set<string>();
    for (const object of listOf(mapped, section)) {
      const key = keyOf(type, object);
      wantedKeys.add(key);
      const before = currentByKey.get(key);
      const id = identity(type, object);
      const changes = before === undefined ? [] : changedMembers(before, object);
      const entry: PlanEntry =
        before === undefined ? { ...id, status: "CAN_BE_CREATED" } : changes.length === 0 ? { ...id, status: "UNCHANGED" } : { ...id, status: "CAN_BE_UPDATED", changes };
      entries.push(entry);
      objectOf.set(entry, object);
    }
    if (!context.prune) continue;
    for (const [key, object] of currentByKey) {
      if (wantedKeys.has(key) || (type === "group" && object.builtIn === true)) continue;
      entries.push({ ...identity(type, object), status: "CAN_BE_DELETED" });
    }
  }
  return withConflicts(entries, objectOf, mapped, current, context);
}

function identity(type: ImportObjectType, object: Obj): Pick<PlanEntry, "type" | "name" | "path"> {
  if (type === "quota") return { type };
  if (type === "folder") return { type, path: object.path as string[] };
  return { type, name: String(object.name) };
}

const QUOTA_COUNTED: readonly { quotaType: string; type: ImportObjectType }[] = [
  { quotaType: "CONNECTION", type: "connection" },
  { quotaType: "SOURCE", type: "source" },
];

/** The entries with the conflicts that block an apply: each written object that cannot be written as the bundle says. */
function withConflicts(entries: PlanEntry[], objectOf: ReadonlyMap<PlanEntry, Obj>, wanted: PlannedBundle, current: PlannedBundle, context: PlanContext): PlanEntry[] {
  const writes = (e: PlanEntry) => e.status === "CAN_BE_CREATED" || e.status === "CAN_BE_UPDATED";
  const groupNames = new Set([...wanted.groups, ...current.groups].map((g) => String(g.name)));
  const deletedGroups = new Set(entries.filter((e) => e.type === "group" && e.status === "CAN_BE_DELETED").map((e) => e.name!));
  const grantProblems = (grants: unknown): string[] =>
    ((grants as { principalType: string; principalName: string }[] | undefined) ?? []).flatMap((g) => {
      if (g.principalType === "USER" && !context.targetUsers.has(g.principalName)) return [`Grants to user '${g.principalName}', which the target account lacks (an import creates no users)`];
      if (g.principalType === "GROUP" && (!groupNames.has(g.principalName) || deletedGroups.has(g.principalName))) {
        return [`Grants to group '${g.principalName}', which neither the bundle nor the target account defines`];
      }
      return [];
    });
  // What the account holds once the plan is applied: the bundle's objects, and with no prune the target's others.
  const kept = (section: keyof PlannedBundle) => listOf(wanted, section).concat(context.prune ? [] : listOf(current, section));
  const keptNames = (section: keyof PlannedBundle) => new Set(kept(section).map((o) => String(o.name)));
  const connectionNames = keptNames("connections");
  const sourceNames = keptNames("sources");
  const folders = new Map(kept("folders").map((f) => [keyOf("folder", f), f]));
  const folderPaths = new Set(kept("folders").map((f) => JSON.stringify(f.path)));
  const targetOf = (view: Obj) => ((view.storageSettings as { targetStorage?: { connectionName?: string } } | undefined)?.targetStorage?.connectionName);
  const usersOf = (type: ImportObjectType, name: string): string[] => {
    if (type === "connection") {
      return [
        ...kept("sources").filter((s) => s.connection === name).map((s) => `source '${String(s.name)}'`),
        ...kept("materializedViews").filter((v) => targetOf(v) === name).map((v) => `materialized view '${String(v.name)}'`),
      ];
    }
    if (type === "source") return kept("materializedViews").filter((v) => v.source === name).map((v) => `materialized view '${String(v.name)}'`);
    return [];
  };
  const currentConnections = new Map(current.connections.map((c) => [String(c.name), c]));

  const quotaOf = (wanted.quota ?? current.quota) as { quotas?: { type: string; limit: number }[] } | undefined;
  const overQuota = new Map<ImportObjectType, string>();
  for (const { quotaType, type } of QUOTA_COUNTED) {
    const limit = quotaOf?.quotas?.find((q) => q.type === quotaType)?.limit;
    if (limit === undefined) continue;
    const keptCount = entries.filter((e) => e.type === type && e.status !== "CAN_BE_DELETED").length;
    const untouched = current[type === "connection" ? "connections" : "sources"].filter((o) => !entries.some((e) => e.type === type && e.name === o.name)).length;
    if (keptCount + untouched > limit) overQuota.set(type, `The account would hold ${keptCount + untouched} objects of quota type ${quotaType}, over its limit of ${limit}`);
  }

  return entries.map((entry) => {
    if (entry.status === "CAN_BE_DELETED") {
      const users = entry.type === "folder" ? kept("connections").filter((c) => JSON.stringify(c.folder) === JSON.stringify(entry.path)).map((c) => `connection '${String(c.name)}'`) : usersOf(entry.type, entry.name!);
      return users.length === 0 ? entry : { ...entry, status: "CONFLICT", conflicts: [`Cannot be deleted: ${users.join(", ")} would still use it`] };
    }
    if (!writes(entry)) return entry;
    const object = objectOf.get(entry)!;
    const problems: string[] = [];
    if (entry.status === "CAN_BE_CREATED" && overQuota.has(entry.type)) problems.push(overQuota.get(entry.type)!);
    if (entry.type === "source") {
      problems.push(...grantProblems(object.permissions));
      if (object.connection !== undefined && !connectionNames.has(String(object.connection))) problems.push(`Its connection '${String(object.connection)}' is neither in the bundle nor in the target account`);
    }
    if (entry.type === "folder") problems.push(...grantProblems(object.permissions), ...folderProblems(object, folders, context.maxFolderDepth ?? MAX_FOLDER_DEPTH));
    if (entry.type === "materializedView") {
      if (!sourceNames.has(String(object.source))) problems.push(`Its source '${String(object.source)}' is neither in the bundle nor in the target account`);
      const target = targetOf(object);
      if (object.storageSettings !== undefined && (target === undefined || !connectionNames.has(target))) problems.push(`Its target connection '${target ?? ""}' is neither in the bundle nor in the target account`);
    }
    if (entry.type === "connection") {
      if (object.folder !== undefined && !folderPaths.has(JSON.stringify(object.folder))) problems.push(`Its folder ${JSON.stringify(object.folder)} is neither in the bundle nor in the target account`);
      const existing = currentConnections.get(entry.name!);
      const existingKeys = new Set(((existing?.allParameters as { key: string }[] | undefined) ?? []).map((p) => p.key));
      const given = context.givenSecrets?.get(entry.name!);
      for (const p of (object.allParameters as { key: string; value?: string }[]) ?? []) {
        if (p.value === undefined && !existingKeys.has(p.key) && !given?.has(p.key)) {
          problems.push(`Its secret parameter '${p.key}' needs a value: the bundle carries none (export with X-Export-Passphrase to carry it sealed), and the target has none to keep`);
        }
      }
    }
    return problems.length === 0 ? entry : { ...entry, status: "CONFLICT", conflicts: problems };
  });
}

/** A folder as the folder endpoints would make it: in a library, under a parent that will be there, within the depth limit, holding items of its library. */
function folderProblems(folder: Obj, folders: ReadonlyMap<string, Obj>, maxDepth: number): string[] {
  const path = folder.path as string[];
  const problems: string[] = [];
  const contentType = folder.contentType as string | undefined;
  if (folder.folderType === "PRIVATE" || folder.visibility === "PRIVATE") return ["Private folders are each user's own, made by the service: they are not imported"];
  if (contentType === undefined || !(contentType in ITEM_TYPE_OF_CONTENT)) problems.push("A folder belongs to a library: its contentType is DASHBOARDS or REPORTS");
  if (folder.folderType !== "CUSTOM" && folder.folderType !== contentType) problems.push(`A folder of the ${contentType ?? "untagged"} library is CUSTOM or ${contentType ?? ""}`);
  if (folder.owner === undefined) problems.push("A folder needs an owning user: the target account has no user of its owner's name, and no importing user or administrator to stand for it");
  if (path.length - 1 > maxDepth) problems.push(`A folder may sit at most ${maxDepth} levels below its root`);
  if (path.length > 1) {
    const parent = folders.get(folderKey(contentType, path.slice(0, -1)));
    if (!parent) problems.push(`Its parent folder ${JSON.stringify(path.slice(0, -1))} is neither in the bundle nor in the target account`);
    else if (parent.projectType !== folder.projectType || parent.visibility !== folder.visibility) problems.push("A subfolder has its parent's projectType and visibility");
  }
  const itemType = ITEM_TYPE_OF_CONTENT[contentType ?? ""];
  for (const item of (folder.items as { itemType: string; itemId: string }[]) ?? []) {
    if (item.itemType !== itemType) problems.push(`Its item ${item.itemType} ${item.itemId} is not of its library (${contentType ?? "none"})`);
  }
  return problems;
}

const APPLIED: Partial<Record<ImportStatus, ImportStatus>> = { CAN_BE_CREATED: "CREATED", CAN_BE_UPDATED: "UPDATED", CAN_BE_REUSED: "REUSED", CAN_BE_DELETED: "DELETED" };

/** The statuses of a plan once applied. */
export function applied(entries: readonly PlanEntry[]): PlanEntry[] {
  return entries.map((e) => ({ ...e, status: APPLIED[e.status] ?? e.status }));
}

export const hasConflicts = (entries: readonly PlanEntry[]) => entries.some((e) => e.status === "CONFLICT");
