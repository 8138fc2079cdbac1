import { ROW_CHANGED } from "../../db/audit-trail";
import { diffMembers } from "../../domain/audit/changes";
import { and, eq, sql } from "drizzle-orm";
import { compiled, ifMatchPlaceholder, inBatch, placeholders } from "../../db/compiled";
import { invalidateGroup } from "../../auth/cache";
import { insertGroup } from "../../db/groups";
import type { Database } from "../../db/client";
import { groups, userGroups } from "../../db/schema";
import { accountForList, accountIdOf, compiledPerScope, placedForWrite, scopeOf, scoped } from "../../db/scope";
import type { Principal } from "../../domain/principal";
import { ApiError, duplicated, invalid, isConstraintError, notFound } from "../../lib/errors";
import { assertMayGrant } from "../../lib/grants";
import { assertSameId, auditForCreate, auditForUpdate, auditOut, checkIfMatch, etagOf, keysetPlan, locationOf, newRevision, perPageShape, ifMatchValue } from "../../lib/http";
import type { AppRouteHandler } from "../../lib/create-router";
import { aliased } from "../../lib/aliases";
import { mergePatchHandler } from "../../lib/merge-patch-route";
import * as routes from "./groups.routes";
import type { GroupWriteSchema } from "./groups.schemas";
import type { z } from "@hono/zod-openapi";

type GroupRow = typeof groups.$inferSelect;

function toGroup(row: GroupRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description ?? null,
    privileges: row.privileges as never[],
    accountId: row.accountId,
    builtIn: row.builtIn,
    ...auditOut(row),
  };
}

// A group's read and writes, compiled once per isolate (db/compiled.ts): Drizzle built their SQL on every
// request. `ifMatch` null: no If-Match, the last writer wins.
const groupById = compiledPerScope((db, scope) => db.select().from(groups).where(scoped(groups.accountId, scope, eq(groups.id, sql.placeholder("id")))));
const updateGroup = compiled((db) =>
  db
    .update(groups)
    .set(placeholders("name", "description", "privileges", "revision", "lastModifiedByUserId", "lastModifiedDate"))
    .where(and(eq(groups.id, sql.placeholder("id")), ifMatchPlaceholder(groups.revision)))
    .returning({ id: groups.id }),
);

async function findGroup(db: Database, principal: Principal, id: string): Promise<GroupRow> {
  const scope = scopeOf(principal);
  const row = await groupById(db, scope).get({ id, accountId: accountIdOf(scope) });
  if (!row) throw notFound("Group");
  return row;
}

const nameTaken = (name: string) => duplicated(`A group named '${name}' already exists in the account`);

function mapWriteError(err: unknown, name: string): never {
  if (isConstraintError(err, "UNIQUE")) throw nameTaken(name);
  if (isConstraintError(err, "FOREIGN KEY")) throw invalid("body.accountId", "No such account");
  throw err;
}

// An account's groups, by name, compiled once per isolate for each page shape (db/compiled.ts).
const groupsPage = perPageShape(groups.name, (page) =>
  compiled((db) => db.select().from(groups).where(scoped(groups.accountId, { kind: "account", accountId: sql.placeholder("accountId") }, page.keyCondition)).orderBy(page.orderBy).limit(page.limit)),
);

export const list: AppRouteHandler<typeof routes.list> = async (c) => {
  const query = c.req.valid("query");
  const db = c.get("db");
  const scope = accountForList(c.get("principal"), query.accountId);
  const plan = await keysetPlan(c, { list: "groups", account: scope.accountId }, groups.name, (r: GroupRow) => r.name, query);
  const page = await plan.toPage(await groupsPage[plan.shape](db).all({ ...plan.pageValues, accountId: scope.accountId }));
  return c.json({ content: page.content.map(toGroup), pageInfo: page.pageInfo }, 200);
};

/** The body with the reference product's aliases resolved: `label` for `name`, `roles` for `privileges`. */
function groupInput(body: z.infer<typeof GroupWriteSchema>) {
  const name = aliased({ name: "body.name", value: body.name }, { name: "body.label", value: body.label });
  if (name === undefined) throw invalid("body.name", "Invalid input: expected string, received undefined");
  const privileges = aliased({ name: "body.privileges", value: body.privileges }, { name: "body.roles", value: body.roles }) ?? [];
  return { id: body.id, name, description: body.description, privileges, accountId: body.accountId };
}

export const create: AppRouteHandler<typeof routes.create> = async (c) => {
  const body = groupInput(c.req.valid("json"));
  const principal = c.get("principal");
  const accountId = await placedForWrite(c, body.accountId);
  assertMayGrant(principal, body.privileges, "grant");
  const values = {
    id: crypto.randomUUID(),
    revision: newRevision(),
    accountId,
    name: body.name,
    description: body.description ?? null,
    privileges: [...new Set(body.privileges)],
    builtIn: false,
    ...auditForCreate(principal),
  };
  c.get("audit").record({ accountId, action: "group.create", target: { type: "group", id: values.id, name: body.name } });
  try {
    await insertGroup(c.get("db")).run(values);
  } catch (err) {
    mapWriteError(err, body.name);
  }
  c.header("Location", locationOf(c, values.id));
  c.header("ETag", etagOf(values.revision));
  return c.json(toGroup(values), 201);
};

export const getOne: AppRouteHandler<typeof routes.getOne> = async (c) => {
  const row = await findGroup(c.get("db"), c.get("principal"), c.req.valid("param").id);
  c.header("ETag", etagOf(row.revision));
  return c.json(toGroup(row), 200);
};

export const update: AppRouteHandler<typeof routes.update> = async (c) => {
  const { id } = c.req.valid("param");
  const body = groupInput(c.req.valid("json"));
  assertSameId(body.id, id);
  const db = c.get("db");
  const principal = c.get("principal");
  const current = await findGroup(db, principal, id);
  checkIfMatch(c, current.revision);
  if (body.accountId !== undefined && body.accountId !== current.accountId) {
    throw invalid("body.accountId", "A group cannot move to another account");
  }
  assertMayGrant(principal, [...current.privileges, ...body.privileges], "change a group holding");
  if (current.builtIn && body.name !== current.name) throw new ApiError("BUILT_IN_GROUP", "Built-in groups cannot be renamed");
  if (current.builtIn && current.privileges.includes("ROLE_ADMIN") && !body.privileges.includes("ROLE_ADMIN")) {
    throw new ApiError("BUILT_IN_GROUP", "The Administrators group keeps ROLE_ADMIN");
  }
  const changes = {
    name: body.name,
    description: body.description ?? null,
    privileges: [...new Set(body.privileges)],
    revision: newRevision(),
    ...auditForUpdate(principal),
  };
  c.get("audit").recordIf(ROW_CHANGED, {
    accountId: current.accountId,
    action: "group.update",
    target: { type: "group", id, name: body.name },
    changes: diffMembers(toGroup(current), toGroup({ ...current, ...changes })),
  });
  let updated;
  try {
    updated = await updateGroup(db).get({ ...changes, id, ifMatch: ifMatchValue(c, current.revision) });
  } catch (err) {
    mapWriteError(err, body.name);
  }
  if (!updated) throw new ApiError("PRECONDITION_FAILED", "The group was changed concurrently; reload it and retry");
  // Only the members' privileges can change, and only if the group's did: a rename or a new description evicts nobody.
  if (!samePrivileges(current.privileges, changes.privileges)) invalidateGroup(id);
  c.header("ETag", etagOf(changes.revision));
  return c.json(toGroup({ ...current, ...changes }), 200);
};

export const remove: AppRouteHandler<typeof routes.remove> = async (c) => {
  const { id } = c.req.valid("param");
  const db = c.get("db");
  const principal = c.get("principal");
  const current = await findGroup(db, principal, id);
  if (current.builtIn) throw new ApiError("BUILT_IN_GROUP", "Built-in groups cannot be deleted");
  checkIfMatch(c, current.revision);
  assertMayGrant(principal, current.privileges, "delete a group holding");
  c.get("audit").recordIf(ROW_CHANGED, { accountId: current.accountId, action: "group.delete", target: { type: "group", id, name: current.name } });
  await db.batch([inBatch(unlinkMembers(db), { id }), inBatch(deleteGroup(db), { id })]);
  invalidateGroup(id);
  return c.body(null, 204);
};

// A deletion's statements, compiled once per isolate (db/compiled.ts): Drizzle built their SQL on every request.
const unlinkMembers = compiled((db) => db.delete(userGroups).where(eq(userGroups.groupId, sql.placeholder("id"))));
const deleteGroup = compiled((db) => db.delete(groups).where(eq(groups.id, sql.placeholder("id"))));

function samePrivileges(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((p) => right.has(p));
}

/** JSON Merge Patch: the PUT applied to the object as read with the patch merged in (src/lib/merge-patch-route.ts). */
export const patch = mergePatchHandler({ read: getOne, put: routes.update, write: update }) as unknown as AppRouteHandler<typeof routes.patch>;
