import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Context } from "hono";
import { invalidateUser } from "../../auth/cache";
import { refusedBy, refuseWhen, WRITE_CONFLICT_GUARD } from "../../db/batch-guards";
import type { Database } from "../../db/client";
import { accounts, userGroups, users } from "../../db/schema";
import { compiled, inBatch, placeholders } from "../../db/compiled";
import { accountIdOf, compiledPerScope, scopeOf, scoped } from "../../db/scope";
import { ApiError, notFound, type Problem } from "../../lib/errors";
import { assertMayGrant } from "../../lib/grants";
import { auditForUpdate } from "../../lib/http";
import type { AppRouteHandler } from "../../lib/create-router";
import type { AppEnv } from "../../lib/types";
import type { UserRef } from "./account-members.schemas";
import type * as routes from "./account-members.routes";

const ADMINISTRATORS = "Administrators";

/** Whether the user of the row holds ROLE_ADMIN, in its own roles or through a group (`group`: only groups whose name is not that). */
const holdsAdminThrough = (group: SQL) => sql`EXISTS (SELECT 1 FROM user_groups ug JOIN groups g ON g.id = ug.group_id, json_each(g.privileges) p
  WHERE ug.user_id = users.id AND p.value = 'ROLE_ADMIN' AND ${group})`;
const holdsAdmin = sql`(EXISTS (SELECT 1 FROM json_each(users.roles) WHERE value = 'ROLE_ADMIN') OR ${holdsAdminThrough(sql`1`)})`;

interface Member {
  id: string;
  name: string;
  admin: boolean;
  /** Groups other than Administrators through which it holds ROLE_ADMIN. */
  adminElsewhere: boolean;
}

/**
 * The account the path names, seen from the caller (the supervisor any; a user its own, others are
 * a 404 as a missing one), with its users: one round trip.
 */
async function accountMembers(c: Context<AppEnv>, accountId: string): Promise<Member[]> {
  const db = c.get("db");
  const scope = scopeOf(c.get("principal"));
  const [found, members] = await db.batch([
    inBatch(accountSeen(db, scope), { accountId: accountIdOf(scope), id: accountId }),
    inBatch(membersOfAccount(db), { id: accountId }),
  ]);
  if (found.length === 0) throw notFound("Account");
  return members.map((m) => ({ id: m.id, name: m.name, admin: Boolean(m.admin), adminElsewhere: Boolean(m.adminElsewhere) }));
}

// The reads and the administrators' write, compiled once per isolate (db/compiled.ts): Drizzle built
// their SQL on every request. `id` is the account of the path; lists are JSON arrays of user ids.
const accountSeen = compiledPerScope((db, scope) => db.select({ id: accounts.id }).from(accounts).where(scoped(accounts.id, scope, eq(accounts.id, sql.placeholder("id")))));
const membersOfAccount = compiled((db) =>
  db
    .select({
      id: users.id,
      name: users.name,
      // `users.id` spelled out in the subqueries: in a single-table select Drizzle renders ${users.id} as a bare "id".
      admin: sql<number>`${holdsAdmin}`,
      adminElsewhere: sql<number>`${holdsAdminThrough(sql`g.name <> ${ADMINISTRATORS}`)}`,
    })
    .from(users)
    .where(eq(users.accountId, sql.placeholder("id")))
    .orderBy(users.name),
);

const viewOf = (m: { id: string; name: string }) => ({ id: m.id, name: m.name });

/** Each entry of a PUT's list as a user of the account: by id, by name, or both agreeing; 400 naming the entry otherwise. */
function resolveListed(list: UserRef[], members: Member[]): Member[] {
  const byId = new Map(members.map((m) => [m.id, m]));
  const byName = new Map(members.map((m) => [m.name, m]));
  const problems: Problem[] = [];
  const seen = new Set<string>();
  const listed: Member[] = [];
  list.forEach((ref, i) => {
    const member = ref.id !== undefined ? byId.get(ref.id) : byName.get(ref.name!);
    const at = `body[${i}].${ref.id !== undefined ? "id" : "name"}`;
    // Another account's user and no user get the same answer.
    if (!member) return problems.push({ name: at, message: "No user with this id or name in the account", level: "ERROR" });
    if (ref.id !== undefined && ref.name !== undefined && ref.name !== member.name) {
      return problems.push({ name: `body[${i}].name`, message: `The user with this id is named '${member.name}'`, level: "ERROR" });
    }
    if (seen.has(member.id)) return problems.push({ name: at, message: "This user is listed twice", level: "ERROR" });
    seen.add(member.id);
    listed.push(member);
  });
  if (problems.length > 0) throw new ApiError("VALIDATION_FAILED", "The list names users the account does not have", { problems });
  return listed;
}

export const listUsers: AppRouteHandler<typeof routes.listUsers> = async (c) =>
  c.json((await accountMembers(c, c.req.valid("param").accountId)).map(viewOf), 200);

export const putUsers: AppRouteHandler<typeof routes.putUsers> = async (c) => {
  const members = await accountMembers(c, c.req.valid("param").accountId);
  const listed = new Set(resolveListed(c.req.valid("json"), members).map((m) => m.id));
  const left = members.filter((m) => !listed.has(m.id));
  if (left.length > 0) {
    throw new ApiError("ACCOUNT_USERS_INCOMPLETE", "Users of the account are left out: a user leaves its account only by being deleted (DELETE /api/users/{id})", {
      problems: left.map((m) => ({ name: "body", message: `Left out: user '${m.name}' (${m.id})`, level: "ERROR" as const })),
    });
  }
  return c.json(members.map(viewOf), 200);
};

export const listAdmins: AppRouteHandler<typeof routes.listAdmins> = async (c) =>
  c.json((await accountMembers(c, c.req.valid("param").accountId)).filter((m) => m.admin).map(viewOf), 200);

export const putAdmins: AppRouteHandler<typeof routes.putAdmins> = async (c) => {
  const { accountId } = c.req.valid("param");
  const principal = c.get("principal");
  const members = await accountMembers(c, accountId);
  const listed = resolveListed(c.req.valid("json"), members);
  const listedIds = new Set(listed.map((m) => m.id));
  const promoted = listed.filter((m) => !m.admin);
  const demoted = members.filter((m) => m.admin && !listedIds.has(m.id));
  const answer = () => c.json([...listed].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(viewOf), 200);
  if (promoted.length === 0 && demoted.length === 0) return answer();

  assertMayGrant(principal, ["ROLE_ADMIN"], promoted.length > 0 ? "grant" : "take away");
  const problems: Problem[] = demoted.flatMap((m) =>
    m.id === principal.id
      ? [{ name: "body", message: `You ('${m.name}') cannot leave yourself out of the administrators`, level: "ERROR" as const }]
      : m.adminElsewhere
        ? [{ name: "body", message: `User '${m.name}' holds ROLE_ADMIN through a group other than ${ADMINISTRATORS}: change that group's members first`, level: "ERROR" as const }]
        : [],
  );
  if (problems.length > 0) throw new ApiError("ADMINS_NOT_REPLACEABLE", "The administrators cannot be replaced as asked", { problems });

  // One event per user whose administrator standing changed; they commit with the batch or not at all.
  const standing = (m: Member, after: boolean) => ({
    accountId,
    action: "user.update" as const,
    target: { type: "user" as const, id: m.id, name: m.name },
    changes: [{ member: "administrator", before: !after, after }],
  });
  c.get("audit").record(...promoted.map((m) => standing(m, true)), ...demoted.map((m) => standing(m, false)));
  await writeAdmins(c.get("db"), accountId, listed.map((m) => m.id), promoted.map((m) => m.id), demoted.map((m) => m.id), auditForUpdate(principal));
  // Their privileges changed: this isolate's cached sign-ins of them go.
  [...promoted, ...demoted].forEach((m) => invalidateUser(m.id));
  return answer();
};

/**
 * One batch: the promoted join Administrators, the demoted leave it and lose ROLE_ADMIN from their
 * roles, each changed user gets a new revision; the last statement proves that exactly the listed
 * users of the account now hold ROLE_ADMIN, so a concurrent change of the same memberships fails
 * the whole batch (412) instead of leaving a mix.
 */
async function writeAdmins(db: Database, accountId: string, listed: string[], promoted: string[], demoted: string[], audit: ReturnType<typeof auditForUpdate>) {
  const values = {
    accountId,
    listed: JSON.stringify(listed),
    promoted: JSON.stringify(promoted),
    demoted: JSON.stringify(demoted),
    changed: JSON.stringify([...promoted, ...demoted]),
    ...audit,
  };
  try {
    await db.batch([
      inBatch(joinAdministrators(db), values),
      inBatch(leaveAdministrators(db), values),
      inBatch(dropAdminRole(db), values),
      inBatch(reviseChanged(db), values),
      inBatch(refuseUnlessListedAreAdmins(db), values),
    ]);
  } catch (err) {
    if (refusedBy(err, WRITE_CONFLICT_GUARD)) throw new ApiError("PRECONDITION_FAILED", "The account's users or groups changed meanwhile; reload the administrators and retry");
    throw err;
  }
}

const inList = (name: string) => sql`(SELECT value FROM json_each(${sql.placeholder(name)}))`;
const ofAccount = sql.placeholder("accountId");
const administrators = sql`(SELECT id FROM groups WHERE account_id = ${ofAccount} AND name = ${ADMINISTRATORS} AND built_in = 1)`;
const joinAdministrators = compiled((db) =>
  db
    .insert(userGroups)
    .select(sql`SELECT users.id, ${administrators}, ${ofAccount} FROM users WHERE users.account_id = ${ofAccount} AND users.id IN ${inList("promoted")}`)
    .onConflictDoNothing(),
);
const leaveAdministrators = compiled((db) =>
  db.delete(userGroups).where(and(eq(userGroups.accountId, ofAccount), sql`${userGroups.groupId} = ${administrators}`, sql`${userGroups.userId} IN ${inList("demoted")}`)),
);
const dropAdminRole = compiled((db) =>
  db
    .update(users)
    .set({ roles: sql`(SELECT json_group_array(value) FROM json_each(users.roles) WHERE value <> 'ROLE_ADMIN')` })
    .where(and(eq(users.accountId, ofAccount), sql`users.id IN ${inList("demoted")}`)),
);
const reviseChanged = compiled((db) =>
  db
    .update(users)
    .set({ revision: sql`lower(hex(randomblob(8)))`, ...placeholders("lastModifiedByUserId", "lastModifiedDate") })
    .where(and(eq(users.accountId, ofAccount), sql`users.id IN ${inList("changed")}`)),
);
const refuseUnlessListedAreAdmins = compiled((db) =>
  refuseWhen(db, WRITE_CONFLICT_GUARD, sql`EXISTS (SELECT 1 FROM users WHERE users.account_id = ${ofAccount} AND (users.id IN ${inList("listed")}) <> ${holdsAdmin})`, "account admins"),
);
