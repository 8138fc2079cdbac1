import { and, eq, inArray, ne, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Context } from "hono";
import { ROW_CHANGED, rowHasRevision } from "../../db/audit-trail";
import { refusedBy, refuseWhen, WRITE_CONFLICT_GUARD } from "../../db/batch-guards";
import { diffMembers, secretChanged } from "../../domain/audit/changes";
import { invalidateUser } from "../../auth/cache";
import type { Database } from "../../db/client";
import { boundAsGiven, compiled, ifMatchPlaceholder, inBatch, placeholders } from "../../db/compiled";
import { accessTokens, folderAcl, folderItems, folders, folderTreeState, sourcePermissions, sources, userAttributes, userGroups, users } from "../../db/schema";
import { accountForList, accountIdOf, compiledPerScope, placedForWrite, scopeOf, scoped } from "../../db/scope";
import { claimUserName, isUserNameTaken, releaseUserName, releaseUserNamesOf, withUserName } from "../../db/shards/user-names";
import { writeAcross } from "../../db/shards/write-across";
import { hashPassword } from "../../domain/passwords";
import { isSupervisorName } from "../../domain/usernames";
import type { Principal } from "../../domain/principal";
import { ApiError, duplicated, invalid, isConstraintError, notFound, raisedBy, USER_MISSING } from "../../lib/errors";
import { aliased } from "../../lib/aliases";
import { mergePatchHandler } from "../../lib/merge-patch-route";
import { assertMayGrant } from "../../lib/grants";
import { assertSameId, auditForCreate, auditForUpdate, auditOut, checkIfMatch, etagOf, keysetPlan, locationOf, newRevision, perPageShape, ifMatchValue } from "../../lib/http";
import type { AppRouteHandler } from "../../lib/create-router";
import type { AppEnv } from "../../lib/types";
import { groupsByName, requireGroupsNamed, selectGroupsNamed } from "../groups/groups.lookup";
import type { UserWrite } from "./users.schemas";
import * as routes from "./users.routes";

/** Users with their group names and every privilege they hold through those groups, in one query. */
const userColumns = {
  id: users.id,
  name: users.name,
  fullName: users.fullName,
  email: users.email,
  accountId: users.accountId,
  roles: users.roles,
  revision: users.revision,
  createdByUserId: users.createdByUserId,
  createdDate: users.createdDate,
  lastModifiedByUserId: users.lastModifiedByUserId,
  lastModifiedDate: users.lastModifiedDate,
  // `users.id` spelled out: in a single-table select Drizzle renders ${users.id} as a bare "id", which the subquery would resolve to g.id.
  groups: sql<string>`(SELECT json_group_array(json_object('name', g.name, 'privileges', json(g.privileges))) FROM (SELECT g.name, g.privileges FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ug.user_id = users.id ORDER BY g.name) g)`,
};

type UserRow = Omit<typeof users.$inferSelect, "passwordAlgorithm" | "passwordIterations" | "passwordSalt" | "passwordHash" | "groups"> & {
  groups: string;
};

interface GroupRef {
  name: string;
  privileges: string[];
}

const groupsOf = (row: UserRow) => JSON.parse(row.groups) as GroupRef[];
const privilegesOf = (row: UserRow) => [...row.roles, ...groupsOf(row).flatMap((g) => g.privileges)];

/** Password material never leaves this module's queries: the response is built from named members only. */
function toUser(row: UserRow) {
  return {
    id: row.id,
    name: row.name,
    fullName: row.fullName ?? null,
    email: row.email ?? null,
    accountId: row.accountId,
    groups: groupsOf(row).map((g) => g.name),
    roles: row.roles as never[],
    ...auditOut(row),
  };
}

// A user by id, compiled once per isolate for each kind of scope (db/compiled.ts): its GET, PUT and PATCH read it first.
const userById = compiledPerScope((db, scope) => db.select(userColumns).from(users).where(scoped(users.accountId, scope, eq(users.id, sql.placeholder("id")))));

const userValues = (principal: Principal, id: string) => ({ id, accountId: accountIdOf(scopeOf(principal)) });

const selectUser = (db: Database, principal: Principal, id: string) => inBatch(userById(db, scopeOf(principal)), userValues(principal, id));

async function findUser(db: Database, principal: Principal, id: string): Promise<UserRow> {
  const row = await userById(db, scopeOf(principal)).get(userValues(principal, id));
  if (!row) throw notFound("User");
  return row;
}

function refuseReservedName(name: string, supervisorName: string | undefined): void {
  if (isSupervisorName(name, supervisorName)) throw duplicated(`The name '${name}' is reserved`);
}

const concurrentlyChanged = () => new ApiError("PRECONDITION_FAILED", "The user was changed concurrently; reload it and retry");

const nameTaken = (name: string) => duplicated(`A user named '${name}' already exists`);

function mapWriteError(err: unknown, name: string): never {
  if (isUserNameTaken(err)) throw nameTaken(name);
  if (isConstraintError(err, "FOREIGN KEY")) throw invalid("body.accountId", "No such account");
  throw err;
}

// An account's users, by name, compiled once per isolate for each page shape (db/compiled.ts).
const usersPage = perPageShape(users.name, (page) =>
  compiled((db) => db.select(userColumns).from(users).where(scoped(users.accountId, { kind: "account", accountId: sql.placeholder("accountId") }, page.keyCondition)).orderBy(page.orderBy).limit(page.limit)),
);

export const list: AppRouteHandler<typeof routes.list> = async (c) => {
  const query = c.req.valid("query");
  const db = c.get("db");
  const scope = accountForList(c.get("principal"), query.accountId);
  const plan = await keysetPlan(c, { list: "users", account: scope.accountId }, users.name, (r: UserRow) => r.name, query);
  const page = await plan.toPage(await usersPage[plan.shape](db).all({ ...plan.pageValues, accountId: scope.accountId }));
  return c.json({ content: page.content.map(toUser), pageInfo: page.pageInfo }, 200);
};

export const create: AppRouteHandler<typeof routes.create> = async (c) => {
  const body = c.req.valid("json");
  const db = c.get("db");
  const principal = c.get("principal");
  const accountId = await placedForWrite(c, body.accountId);
  refuseReservedName(body.name, c.env.SUPERVISOR_USERNAME);
  const groupRows = await groupsByName(db, accountId, body.groups);
  assertMayGrant(principal, [...body.roles, ...groupRows.flatMap((g) => g.privileges)], "grant");
  const password = await hashPassword(body.password);
  const id = crypto.randomUUID();
  const audit = auditForCreate(principal);
  const values = {
    id,
    revision: newRevision(),
    accountId,
    name: body.name,
    fullName: fullNameOf(body),
    email: body.email ?? null,
    roles: [...new Set(body.roles)],
    passwordAlgorithm: password.algorithm,
    passwordIterations: password.iterations,
    passwordSalt: password.salt,
    passwordHash: password.hash,
    ...audit,
  };
  try {
    await withUserName(c, body.name, () => {
      c.get("audit").record({ accountId, action: "user.create", target: { type: "user", id, name: body.name } });
      // The name is claimed in the directory first (db/shards/user-names.ts): one batch on one database.
      return writeAcross(c, {
        directory: (d) => [claimUserName(d, { name: body.name, userId: id, accountId })],
        shard: (d) => [d.insert(users).values(values), ...groupRows.map((g) => d.insert(userGroups).values({ userId: id, groupId: g.id, accountId }))],
        undo: (d) => [releaseUserName(d, body.name, id)],
      });
    });
  } catch (err) {
    mapWriteError(err, body.name);
  }
  c.header("Location", locationOf(c, id));
  c.header("ETag", etagOf(values.revision));
  return c.json(toUser({ ...values, groups: JSON.stringify(sortedGroups(groupRows)) }), 201);
};

export const getOne: AppRouteHandler<typeof routes.getOne> = async (c) => {
  const row = await findUser(c.get("db"), c.get("principal"), c.req.valid("param").id);
  c.header("ETag", etagOf(row.revision));
  return c.json(toUser(row), 200);
};

export const update: AppRouteHandler<typeof routes.update> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  assertSameId(body.id, id);
  const db = c.get("db");
  const principal = c.get("principal");
  refuseReservedName(body.name, c.env.SUPERVISOR_USERNAME);
  // One round trip reads the user and the groups it is to join (in the user's own account).
  const [found, namedGroups] = await db.batch([
    selectUser(db, principal, id),
    selectGroupsNamed(db, { ofUser: id }, body.groups),
  ]);
  const current = found[0];
  if (!current) throw notFound("User");
  checkIfMatch(c, current.revision);
  assertMayGrant(principal, privilegesOf(current), "take control of a user holding");
  if (body.accountId !== undefined && body.accountId !== current.accountId) {
    throw invalid("body.accountId", "A user cannot move to another account");
  }
  const groupRows = requireGroupsNamed(body.groups, namedGroups);
  assertMayGrant(principal, [...body.roles, ...groupRows.flatMap((g) => g.privileges)], "grant");
  const password = body.password ? await hashPassword(body.password) : undefined;
  const changes = {
    name: body.name,
    fullName: fullNameOf(body),
    email: body.email ?? null,
    roles: [...new Set(body.roles)],
    revision: newRevision(),
    ...(password && {
      passwordAlgorithm: password.algorithm,
      passwordIterations: password.iterations,
      passwordSalt: password.salt,
      passwordHash: password.hash,
    }),
    ...auditForUpdate(principal),
  };
  // Group links are replaced only if the guarded update won (wonUpdate): its new revision is unique to this write.
  const values = { ...changes, id, ifMatch: ifMatchValue(c, current.revision), accountId: current.accountId, groupIds: JSON.stringify(groupRows.map((g) => g.id)) };
  const after = toUser({ ...current, ...changes, groups: JSON.stringify(sortedGroups(groupRows)) });
  // A new name is claimed in the directory (db/shards/user-names.ts), and must not outlive a write
  // that lost: a rename fails its whole batch when the guarded update missed; its old name goes after.
  const renamed = body.name !== current.name;
  let results;
  try {
    results = await withUserName(c, body.name, async () => {
      c.get("audit").recordIf(rowHasRevision("users", id, changes.revision), {
        accountId: current.accountId,
        action: "user.update",
        target: { type: "user", id, name: body.name },
        changes: [...diffMembers(toUser(current), after), ...(password ? [secretChanged("password")] : [])],
      });
      const written = await writeAcross(c, {
        directory: (d) => (renamed ? [claimUserName(d, { name: body.name, userId: id, accountId: current.accountId })] : []),
        shard: (d) => [
          inBatch(updateUser[password ? "withPassword" : "withoutPassword"](d), values),
          inBatch(unlinkGroupsIfWon(d), values),
          ...(groupRows.length > 0 ? [inBatch(linkGroupsIfWon(d), values)] : []),
          ...(renamed ? [inBatch(refuseRenameIfLost(d), values)] : []),
        ],
        undo: (d) => (renamed ? [releaseUserName(d, body.name, id)] : []),
        after: (d) => (renamed ? [releaseUserName(d, current.name, id)] : []),
      });
      return written.shard;
    });
  } catch (err) {
    if (refusedBy(err, WRITE_CONFLICT_GUARD)) throw concurrentlyChanged();
    mapWriteError(err, body.name);
  }
  if (results[0].length === 0) throw concurrentlyChanged();
  invalidateUser(id);
  c.header("ETag", etagOf(changes.revision));
  return c.json(after, 200);
};

// The statements of a user's update, compiled once per isolate (db/compiled.ts): Drizzle building
// their SQL was a fifth of the PUT's CPU. `ifMatch` null: no If-Match, the last writer wins.
const updateUserIn = (withPassword: boolean) =>
  compiled((db) =>
    db
      .update(users)
      .set({
        ...placeholders("name", "fullName", "email", "roles", "revision", "lastModifiedByUserId", "lastModifiedDate"),
        ...(withPassword ? placeholders("passwordAlgorithm", "passwordIterations", "passwordSalt", "passwordHash") : {}),
      })
      .where(and(eq(users.id, sql.placeholder("id")), ifMatchPlaceholder(users.revision)))
      .returning({ id: users.id }),
  );
const updateUser = { withPassword: updateUserIn(true), withoutPassword: updateUserIn(false) };
/** The update that set `revision` won (a revision is unique to its write). */
const wonUpdate = sql`EXISTS (SELECT 1 FROM users WHERE id = ${sql.placeholder("id")} AND revision = ${sql.placeholder("revision")})`;
const unlinkGroupsIfWon = compiled((db) => db.delete(userGroups).where(and(eq(userGroups.userId, sql.placeholder("id")), wonUpdate)));
// A query builder, not db.run(sql): Drizzle's D1 batch cannot bind the parameters of a raw statement.
const linkGroupsIfWon = compiled((db) =>
  db.insert(userGroups).select(sql`SELECT ${sql.placeholder("id")}, value, ${sql.placeholder("accountId")} FROM json_each(${sql.placeholder("groupIds")}) WHERE ${wonUpdate}`),
);
/** A rename's claim of its new name must not outlive an update that lost: this fails the batch then. */
const refuseRenameIfLost = compiled((db) => refuseWhen(db, WRITE_CONFLICT_GUARD, sql`NOT ${wonUpdate}`, "user rename"));

/** The most owned objects a refused delete lists (`hasOtherUsages` says there are more). */
const MAX_OWNED_LISTED = 100;

// A deletion's statements, compiled once per isolate (db/compiled.ts): Drizzle built their SQL (a
// dozen statements) on every request. Their placeholders: `id` the user deleted, `transferTo` the
// user who takes its objects over, `ownedCount` how many objects it moves.
const deletedUser = sql.placeholder("id");

/** What a user owns outside its private tree: sources, and folders of the shared libraries (at most `limit`: -1 for all). */
const ownedBy = compiled((db) =>
  db
    .select({ type: sql<string>`'SOURCE'`, id: sources.id, name: sources.name })
    .from(sources)
    .where(eq(sources.ownerUserId, deletedUser))
    .unionAll(
      db
        .select({ type: sql<string>`'FOLDER'`, id: folders.id, name: folders.name })
        .from(folders)
        .where(and(eq(folders.ownerUserId, deletedUser), ne(folders.projectType, "PERSONAL"))),
    )
    .limit(sql.placeholder("limit")),
);

/** The user `transferTo` names, if it is of the deleted user's account. */
const heirOf = compiled((db) =>
  db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.id, sql.placeholder("transferTo")), eq(users.accountId, sql`(SELECT account_id FROM users WHERE id = ${deletedUser})`))),
);

/** The user's private tree (its PERSONAL project): its alone, never shared, so it goes with it. */
const inPrivateTree = and(eq(folders.ownerUserId, deletedUser), eq(folders.projectType, "PERSONAL"));
const grantsTo = (principalType: SQLiteColumn, principalId: SQLiteColumn) => and(eq(principalType, "USER"), eq(principalId, deletedUser));

/** The shard's statements of a deletion, in the batch's order: the transfer's only with transferTo. */
const deletion = {
  first: [compiled((db) => db.delete(folderTreeState).where(eq(folderTreeState.userId, deletedUser)))],
  // Ownership moves in the delete's own transaction; the triggers of migration 0010 refuse an heir deleted meanwhile.
  transfer: [
    // What is moved is exactly what was read (and recorded): anything else owned now came meanwhile.
    compiled((db) =>
      refuseWhen(
        db,
        WRITE_CONFLICT_GUARD,
        sql`(SELECT count(*) FROM sources WHERE owner_user_id = ${deletedUser}) + (SELECT count(*) FROM folders WHERE owner_user_id = ${deletedUser} AND project_type != 'PERSONAL') != ${sql.placeholder("ownedCount")}`,
      ),
    ),
    compiled((db) => db.update(sources).set({ ownerUserId: boundAsGiven("transferTo") }).where(eq(sources.ownerUserId, deletedUser))),
    compiled((db) => db.update(folders).set({ ownerUserId: boundAsGiven("transferTo") }).where(and(eq(folders.ownerUserId, deletedUser), ne(folders.projectType, "PERSONAL")))),
  ],
  rest: [
    compiled((db) => db.delete(folderItems).where(inArray(folderItems.folderId, db.select({ id: folders.id }).from(folders).where(inPrivateTree)))),
    // One statement for the whole tree: its parent links are checked when the statement ends.
    compiled((db) => db.delete(folders).where(inPrivateTree)),
    // Anything owned now was made after the read (a source created meanwhile): refused, nothing deleted.
    compiled((db) =>
      refuseWhen(db, WRITE_CONFLICT_GUARD, sql`EXISTS (SELECT 1 FROM sources WHERE owner_user_id = ${deletedUser}) OR EXISTS (SELECT 1 FROM folders WHERE owner_user_id = ${deletedUser})`),
    ),
    compiled((db) => db.delete(sourcePermissions).where(grantsTo(sourcePermissions.principalType, sourcePermissions.principalId))),
    compiled((db) => db.delete(folderAcl).where(grantsTo(folderAcl.principalType, folderAcl.principalId))),
    compiled((db) => db.delete(accessTokens).where(eq(accessTokens.userId, deletedUser))),
    compiled((db) => db.delete(userAttributes).where(eq(userAttributes.userId, deletedUser))),
    compiled((db) => db.delete(userGroups).where(eq(userGroups.userId, deletedUser))),
    compiled((db) => db.delete(users).where(eq(users.id, deletedUser))),
  ],
};

const transferToProblem = (message: string) => invalid("query.transferTo", message);

/** Attempts of a delete with transferTo whose user gained objects between its read and its write (each move is an event, so it moves only what it read). */
const TRANSFER_ATTEMPTS = 3;

export const remove: AppRouteHandler<typeof routes.remove> = async (c) => {
  const { id } = c.req.valid("param");
  const { transferTo } = c.req.valid("query");
  if (transferTo === id) throw transferToProblem("Names the user being deleted: name the user who takes its objects over");
  for (let attempt = 1; !(await attemptRemove(c, id, transferTo, attempt === TRANSFER_ATTEMPTS)); attempt++);
  invalidateUser(id);
  return c.body(null, 204);
};

/** One read and one write of the delete; false when transferTo must read again (and `last` is false). */
async function attemptRemove(c: Context<AppEnv>, id: string, transferTo: string | undefined, last: boolean): Promise<boolean> {
  const db = c.get("db");
  const principal = c.get("principal");
  // One round trip: the user, what it owns, and the user who is to take it over (in the same account).
  const [found, owned, heirs] = await db.batch([
    selectUser(db, principal, id),
    // All of it when it moves (each move is an audit event), else as much as a refusal lists.
    inBatch(ownedBy(db), { id, limit: transferTo === undefined ? MAX_OWNED_LISTED + 1 : -1 }),
    inBatch(heirOf(db), { id, transferTo: transferTo ?? "" }),
  ]);
  const current = found[0];
  if (!current) throw notFound("User");
  if (principal.id === id) throw new ApiError("CANNOT_DELETE_SELF", "You cannot delete yourself");
  checkIfMatch(c, current.revision);
  assertMayGrant(principal, privilegesOf(current), "delete a user holding");
  if (transferTo !== undefined && heirs.length === 0) throw transferToProblem("No such user in the deleted user's account");
  if (transferTo === undefined && owned.length > 0) throw ownsObjects(current.name, owned);
  const audit = c.get("audit");
  // One event per moved object; the delete's own is conditioned on the user's row having gone (the batch's last write).
  for (const object of transferTo === undefined ? [] : owned) {
    const type = object.type === "SOURCE" ? "source" : "folder";
    audit.record({ accountId: current.accountId, action: `${type}.update`, target: { type, id: object.id, name: object.name }, changes: [{ member: "ownerUserId", before: id, after: transferTo }] });
  }
  audit.recordIf(ROW_CHANGED, { accountId: current.accountId, action: "user.delete", target: { type: "user", id, name: current.name } });
  const values = { id, transferTo, ownedCount: owned.length };
  try {
    // Its names are let go in the directory once the shard has deleted it (db/shards/user-names.ts).
    await writeAcross(c, {
      directory: () => [],
      after: (d) => [releaseUserNamesOf(d, { userId: id })],
      shard: (d) => [...deletion.first, ...(transferTo === undefined ? [] : deletion.transfer), ...deletion.rest].map((statement) => inBatch(statement(d), values)),
    });
  } catch (err) {
    if (raisedBy(err, USER_MISSING)) throw transferToProblem("The user was deleted meanwhile");
    if (refusedBy(err, WRITE_CONFLICT_GUARD)) {
      if (transferTo !== undefined) {
        if (!last) return false;
        throw new ApiError("CONCURRENT_UPDATE", "The user's sources or folders changed while it was being deleted; send the delete again");
      }
      const since = await ownedBy(db).all({ id, limit: MAX_OWNED_LISTED + 1 });
      throw ownsObjects(current.name, since);
    }
    throw err;
  }
  return true;
}

function ownsObjects(userName: string, owned: { type: string; id: string; name: string }[]): ApiError {
  const listed = owned.slice(0, MAX_OWNED_LISTED);
  const message = `The user '${userName}' owns ${owned.length > MAX_OWNED_LISTED ? `more than ${MAX_OWNED_LISTED}` : owned.length} object(s); delete it with transferTo naming the user who takes them over`;
  return new ApiError("USER_OWNS_OBJECTS", message, {
    problems: [{ name: "path.id", message, level: "ERROR", dependencies: { [userName]: { hasOtherUsages: owned.length > MAX_OWNED_LISTED, accessible: listed } } }],
  });
}

/** `fullName`, or the reference product's `fullname`. */
function fullNameOf(body: UserWrite): string | null {
  return aliased({ name: "body.fullName", value: body.fullName }, { name: "body.fullname", value: body.fullname }) ?? null;
}

function sortedGroups(rows: GroupRef[]): GroupRef[] {
  return [...rows].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** JSON Merge Patch: the PUT applied to the user as read with the patch merged in (src/lib/merge-patch-route.ts). */
export const patch = mergePatchHandler({ read: getOne, put: routes.update, write: update, aliases: { fullname: "fullName" }, keptWhenOmitted: ["password"] }) as unknown as AppRouteHandler<typeof routes.patch>;
