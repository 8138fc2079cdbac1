import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  aclAfterInheritanceChange,
  aclForNewFolder,
  chainInPathOrder,
  childFolderPath,
  depthOfFolderPath,
  idsInFolderPath,
  isInSubtree,
  moveRefusal,
  newFolderRefusal,
  pathAfterMove,
  resolveChain,
  resolveChildren,
  resolveFromChain,
  rootFolderPath,
  subtreeHeight,
  visibleBreadcrumb,
  type AclEntry,
  type FolderAccessFacts,
  type FolderCaller,
} from "../../../src/domain/folders";
import {
  aclSourceOf,
  ancestorsAndSelf,
  childrenOf,
  depthOf,
  FIVE,
  groupKey,
  heightOf,
  isSelfOrBelow,
  naivePath,
  naiveResolve,
  projectOf,
  userKey,
  type NaiveFolder,
  type Permission,
  type State,
} from "./naive-model";

/**
 * Random trees, ACLs, inheritance states, creations and moves, applied both to the naive
 * parent-pointer model and to the materialized-path representation (paths rewritten with
 * pathAfterMove). After every step, for every folder and every caller, the chain-based
 * resolver, the children-page resolver and the breadcrumb agree with the naive walk, and the
 * paths, depths and projects agree with the parent pointers. Refusals must match exactly.
 */
const SEED = 20261122;
const RUNS = 150;

const USERS = ["u0", "u1", "u2", "u3"];
// One group shares its id with a user: a rule that forgets the principal type gets caught.
const GROUPS = ["g0", "u1", "g2"];
/** Principal index: users first, then groups. */
const PRINCIPAL_COUNT = USERS.length + GROUPS.length;

interface FolderSpec {
  parentPick: number;
  forceRoot: boolean;
  owner: number;
  state: State;
  isPrivate: boolean;
  grants: { principal: number; permission: Permission }[];
}

type Step =
  | { kind: "move"; folderPick: number; parentPick: number; sameProject: boolean }
  | { kind: "setState"; folderPick: number; state: State }
  | { kind: "create"; parentPick: number; asRoot: boolean; privateRoot: boolean; creator: number; state: State }
  | { kind: "grant"; folderPick: number; principal: number; permission: Permission; revoke: boolean };

interface Scenario {
  maxDepth: number;
  memberships: boolean[][];
  folders: FolderSpec[];
  steps: Step[];
}

const permission = fc.constantFrom<Permission>(...FIVE);
const state = fc.constantFrom<State>("INHERIT", "EXPLICIT");
const oneIn = (n: number) => fc.integer({ min: 1, max: n }).map((k) => k === 1);
const userIndex = fc.integer({ min: 0, max: USERS.length - 1 });
const principalIndex = fc.integer({ min: 0, max: PRINCIPAL_COUNT - 1 });

const folderSpec: fc.Arbitrary<FolderSpec> = fc.record({
  parentPick: fc.nat(),
  forceRoot: oneIn(12),
  owner: userIndex,
  state,
  isPrivate: oneIn(15),
  grants: fc.array(fc.record({ principal: principalIndex, permission }), { maxLength: 4 }),
});

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("move" as const), folderPick: fc.nat(), parentPick: fc.nat(), sameProject: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("setState" as const), folderPick: fc.nat(), state }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("create" as const), parentPick: fc.nat(), asRoot: oneIn(5), privateRoot: oneIn(4), creator: userIndex, state }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("grant" as const), folderPick: fc.nat(), principal: principalIndex, permission, revoke: fc.boolean() }) },
);

const scenario: fc.Arbitrary<Scenario> = fc.record({
  maxDepth: fc.integer({ min: 2, max: 6 }),
  memberships: fc.array(fc.array(fc.boolean(), { minLength: GROUPS.length, maxLength: GROUPS.length }), {
    minLength: USERS.length,
    maxLength: USERS.length,
  }),
  folders: fc.array(folderSpec, { minLength: 1, maxLength: 40, size: "max" }),
  steps: fc.array(step, { maxLength: 20, size: "max" }),
});

function principalKey(index: number): string {
  return index < USERS.length ? userKey(USERS[index]) : groupKey(GROUPS[index - USERS.length]);
}

function aclEntriesOf(folder: NaiveFolder): AclEntry[] {
  const entries: AclEntry[] = [];
  for (const [key, permissions] of folder.acl) {
    const [type, id] = key.split(":");
    for (const p of permissions) entries.push({ principalType: type as "USER" | "GROUP", principalId: id, permission: p });
  }
  return entries;
}

function aclMapOf(entries: readonly AclEntry[]): Map<string, Set<Permission>> {
  const map = new Map<string, Set<Permission>>();
  for (const entry of entries) {
    const key = entry.principalType === "USER" ? userKey(entry.principalId) : groupKey(entry.principalId);
    if (!map.has(key)) map.set(key, new Set());
    map.get(key)!.add(entry.permission);
  }
  return map;
}

function same(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: got ${a}, expected ${e}`);
}

function pick<T>(items: readonly T[], index: number): T {
  return items[index % items.length];
}

/** Both representations side by side: naive folders with parent pointers, and the path store under test. */
class World {
  readonly folders: NaiveFolder[] = [];
  readonly byId = new Map<string, NaiveFolder>();
  readonly paths = new Map<string, string>();
  readonly projects = new Map<string, string>();
  readonly callers: FolderCaller[];

  constructor(readonly maxDepth: number, memberships: boolean[][]) {
    this.callers = USERS.flatMap((userId, u) => {
      const groupIds = GROUPS.filter((_, g) => memberships[u][g]);
      return [false, true].map((isFolderAdmin) => ({ userId, groupIds, isFolderAdmin }));
    });
  }

  add(parent: NaiveFolder | null, ownerId: string, folderState: State, isPrivate: boolean, acl: Map<string, Set<Permission>>): NaiveFolder {
    const id = `f${this.folders.length}`;
    const folder: NaiveFolder = { id, parent, rootProjectId: `project-of-${id}`, ownerId, isPrivate, state: folderState, acl };
    this.folders.push(folder);
    this.byId.set(id, folder);
    this.paths.set(id, parent === null ? rootFolderPath(id) : childFolderPath(this.paths.get(parent.id)!, id));
    this.projects.set(id, parent === null ? folder.rootProjectId : this.projects.get(parent.id)!);
    return folder;
  }

  facts(folder: NaiveFolder): FolderAccessFacts {
    return { id: folder.id, inheritanceState: folder.state, ownerId: folder.ownerId, isPrivate: folder.isPrivate, acl: aclEntriesOf(folder) };
  }

  /** Every folder's facts, with full ACLs (onlyFor null) or only the entries naming one caller, as the handler's query loads them. */
  factsById(onlyFor: FolderCaller | null): Map<string, FolderAccessFacts> {
    return new Map(
      this.folders.map((folder) => {
        const facts = this.facts(folder);
        if (onlyFor === null) return [folder.id, facts];
        const namingCaller = facts.acl.filter((e) => (e.principalType === "USER" ? e.principalId === onlyFor.userId : onlyFor.groupIds.includes(e.principalId)));
        return [folder.id, { ...facts, acl: namingCaller }];
      }),
    );
  }

  /** What the handler's one query gives: the members named by the path, in database order (here reversed), put in chain order. */
  chain(folder: NaiveFolder, factsById: ReadonlyMap<string, FolderAccessFacts>): FolderAccessFacts[] {
    const path = this.paths.get(folder.id)!;
    const rowsInSomeOrder = idsInFolderPath(path)
      .reverse()
      .map((id) => factsById.get(id)!);
    const chain = chainInPathOrder(path, rowsInSomeOrder);
    if (chain === null) throw new Error(`incomplete chain for ${path}`);
    return chain;
  }

  /** Everybody's permissions on everything (not the inherited flags, which a state change may rightly flip). */
  permissionsSnapshot(): string {
    return JSON.stringify(this.callers.map((caller) => this.folders.map((folder) => naiveResolve(folder, caller).permissions)));
  }
}

function buildWorld(s: Scenario): World {
  const world = new World(s.maxDepth, s.memberships);
  s.folders.forEach((spec, index) => {
    let parent = index === 0 || spec.forceRoot ? null : world.folders[spec.parentPick % index];
    if (parent !== null && depthOf(parent) + 1 > s.maxDepth) parent = null;
    const acl = new Map<string, Set<Permission>>();
    for (const grant of spec.grants) {
      const key = principalKey(grant.principal);
      if (!acl.has(key)) acl.set(key, new Set());
      acl.get(key)!.add(grant.permission);
    }
    world.add(parent, USERS[spec.owner], spec.state, spec.isPrivate, acl);
  });
  return world;
}

function checkEverything(world: World, when: string): void {
  const children = new Map(world.folders.map((folder) => [folder, childrenOf(folder, world.folders)]));
  for (const folder of world.folders) {
    const path = world.paths.get(folder.id)!;
    same(path, naivePath(folder), `${when}: path of ${folder.id}`);
    same(depthOfFolderPath(path), depthOf(folder), `${when}: depth of ${folder.id}`);
    same(world.projects.get(folder.id), projectOf(folder), `${when}: project of ${folder.id}`);
    if (depthOf(folder) > world.maxDepth) throw new Error(`${when}: ${folder.id} deeper than ${world.maxDepth}`);
  }
  const fullAcls = world.factsById(null);
  for (const caller of world.callers) {
    const callersEntriesOnly = world.factsById(caller);
    const who = `${when}: ${caller.userId}${caller.isFolderAdmin ? " (folder admin)" : ""}`;
    const expected = new Map(world.folders.map((folder) => [folder, naiveResolve(folder, caller)]));
    for (const folder of world.folders) {
      const chain = world.chain(folder, callersEntriesOnly);
      const resolvedChain = resolveChain(chain, caller);
      const resolved = resolvedChain[resolvedChain.length - 1];
      same({ permissions: resolved.permissions, inherited: resolved.inherited }, expected.get(folder), `${who} on ${folder.id}`);
      same(resolved.aclSourceId, aclSourceOf(folder).id, `${who}: ACL source of ${folder.id}`);

      // Entries naming other principals change nothing.
      const fromFullAcls = resolveFromChain(world.chain(folder, fullAcls), caller);
      same(fromFullAcls.permissions, resolved.permissions, `${who} on ${folder.id}, full ACLs`);

      const crumb = visibleBreadcrumb(chain.map((member, i) => ({ id: member.id, permissions: resolvedChain[i].permissions })));
      const readableAncestors = ancestorsAndSelf(folder).filter((a) => expected.get(a)!.permissions.includes("READ"));
      same(
        { ids: crumb.entries.map((e) => e.id), truncated: crumb.truncated },
        { ids: readableAncestors.map((a) => a.id), truncated: readableAncestors.length < depthOf(folder) + 1 },
        `${who}: breadcrumb of ${folder.id}`,
      );

      const kids = children.get(folder)!;
      const page = resolveChildren(resolved, kids.map((kid) => callersEntriesOnly.get(kid.id)!), caller);
      kids.forEach((kid, i) => same({ permissions: page[i].permissions, inherited: page[i].inherited }, expected.get(kid), `${who}: child ${kid.id} on ${folder.id}'s page`));
    }
  }
}

interface Tally {
  movesDone: number;
  refusals: Record<string, number>;
  madeExplicit: number;
  madeInherit: number;
  created: number;
  explicitChildren: number;
  creationsRefused: number;
}

function applyStep(world: World, s: Step, tally: Tally): string {
  switch (s.kind) {
    case "move": {
      const folder = pick(world.folders, s.folderPick);
      const candidates = s.sameProject ? world.folders.filter((f) => projectOf(f) === projectOf(folder)) : world.folders;
      const parent = pick(candidates, s.parentPick);
      const expected = isSelfOrBelow(parent, folder)
        ? "CYCLE"
        : projectOf(parent) !== projectOf(folder)
          ? "OTHER_PROJECT"
          : depthOf(parent) + 1 + heightOf(folder, world.folders) > world.maxDepth
            ? "TOO_DEEP"
            : null;
      const oldPath = world.paths.get(folder.id)!;
      const newParentPath = world.paths.get(parent.id)!;
      const refusal = moveRefusal(
        { id: folder.id, path: oldPath, projectId: world.projects.get(folder.id)!, subtreeHeight: subtreeHeight(oldPath, world.paths.values()) },
        { id: parent.id, path: newParentPath, projectId: world.projects.get(parent.id)! },
        world.maxDepth,
      );
      const what = `move ${folder.id} under ${parent.id}`;
      same(refusal, expected, what);
      if (refusal !== null) {
        tally.refusals[refusal] = (tally.refusals[refusal] ?? 0) + 1;
        return `${what} (refused ${refusal})`;
      }
      for (const [id, path] of world.paths) {
        if (isInSubtree(path, oldPath)) world.paths.set(id, pathAfterMove(path, oldPath, newParentPath));
      }
      folder.parent = parent;
      tally.movesDone += 1;
      return what;
    }
    case "setState": {
      const folder = pick(world.folders, s.folderPick);
      const from = folder.state;
      const isRoot = folder.parent === null;
      const before = world.permissionsSnapshot();
      // The handler learns the ACL source from the resolver, then loads that folder's full ACL.
      const sourceId = resolveFromChain(world.chain(folder, world.factsById(null)), world.callers[0]).aclSourceId;
      const newAcl = aclAfterInheritanceChange({
        isRoot,
        from,
        to: s.state,
        ownAcl: aclEntriesOf(folder),
        inheritedAcl: aclEntriesOf(world.byId.get(sourceId)!),
      });
      folder.state = s.state;
      folder.acl = aclMapOf(newAcl);
      const what = `${folder.id} ${from} -> ${s.state}`;
      if (from === "INHERIT" && s.state === "EXPLICIT") tally.madeExplicit += 1;
      if (from === "EXPLICIT" && s.state === "INHERIT") tally.madeInherit += 1;
      // Nobody's access changes when a folder starts holding a copy of what it inherited, nor when a root's state changes.
      if (isRoot || from === s.state || s.state === "EXPLICIT") same(world.permissionsSnapshot(), before, `${what}: permissions changed`);
      if (!isRoot && from === "EXPLICIT" && s.state === "INHERIT") same(newAcl, [], `${what}: own ACL kept`);
      return what;
    }
    case "create": {
      const parent = s.asRoot ? null : pick(world.folders, s.parentPick);
      const refusal = newFolderRefusal(parent === null ? null : depthOfFolderPath(world.paths.get(parent.id)!), world.maxDepth);
      const expected = parent !== null && depthOf(parent) + 1 > world.maxDepth ? "TOO_DEEP" : null;
      const what = `create under ${parent?.id ?? "nothing"}`;
      same(refusal, expected, what);
      if (refusal !== null) {
        tally.creationsRefused += 1;
        return `${what} (refused)`;
      }
      const creatorUserId = USERS[s.creator];
      const inheritedAcl = parent === null ? [] : aclEntriesOf(aclSourceOf(parent));
      const acl = aclForNewFolder({ creatorUserId, isRoot: parent === null, inheritanceState: s.state, inheritedAcl });
      const created = world.add(parent, creatorUserId, s.state, parent === null && s.privateRoot, aclMapOf(acl));
      tally.created += 1;
      if (parent !== null) {
        // Created EXPLICIT or INHERIT, a child starts with the same permissions for everybody.
        const inheritTwin: NaiveFolder = { ...created, state: "INHERIT", acl: new Map() };
        for (const caller of world.callers) {
          same(naiveResolve(created, caller).permissions, naiveResolve(inheritTwin, caller).permissions, `${what}: ${s.state} child for ${caller.userId}`);
        }
        if (s.state === "EXPLICIT") tally.explicitChildren += 1;
      }
      return `${what}: ${created.id}`;
    }
    case "grant": {
      const folder = pick(world.folders, s.folderPick);
      const key = principalKey(s.principal);
      if (!folder.acl.has(key)) folder.acl.set(key, new Set());
      if (s.revoke) folder.acl.get(key)!.delete(s.permission);
      else folder.acl.get(key)!.add(s.permission);
      return `${s.revoke ? "revoke" : "grant"} ${s.permission} for ${key} on ${folder.id}`;
    }
  }
}

describe("folder rules against a naive parent-walking model", () => {
  it("agree on permissions, inheritance, breadcrumbs, paths, depths and refusals after every step", () => {
    const tally: Tally = { movesDone: 0, refusals: {}, madeExplicit: 0, madeInherit: 0, created: 0, explicitChildren: 0, creationsRefused: 0 };
    fc.assert(
      fc.property(scenario, (s) => {
        const world = buildWorld(s);
        checkEverything(world, "initial tree");
        s.steps.forEach((st, i) => checkEverything(world, `step ${i} (${applyStep(world, st, tally)})`));
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The run exercised every branch often enough to mean something.
    expect(tally.movesDone).toBeGreaterThan(200);
    expect(tally.refusals.CYCLE).toBeGreaterThan(30);
    expect(tally.refusals.OTHER_PROJECT).toBeGreaterThan(30);
    expect(tally.refusals.TOO_DEEP).toBeGreaterThan(30);
    expect(tally.madeExplicit).toBeGreaterThan(30);
    expect(tally.madeInherit).toBeGreaterThan(30);
    expect(tally.created).toBeGreaterThan(30);
    expect(tally.explicitChildren).toBeGreaterThan(10);
    expect(tally.creationsRefused).toBeGreaterThan(3);
  }, 30_000);
});
