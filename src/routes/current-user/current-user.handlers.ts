import { and, eq, sql } from "drizzle-orm";
import { compiled } from "../../db/compiled";
import { accounts, users } from "../../db/schema";
import { hasPrivilege } from "../../domain/principal";
import { PRIVILEGES } from "../../domain/privileges";
import type { AppRouteHandler } from "../../lib/create-router";
import { ApiError } from "../../lib/errors";
import type { CurrentUser } from "./current-user.schemas";
import type * as routes from "./current-user.routes";

// Compiled once per isolate (db/compiled.ts): every signed-in client asks it.
const currentUser = compiled((db) =>
  db
    .select({
      name: users.name,
      fullName: users.fullName,
      email: users.email,
      roles: users.roles,
      accountName: accounts.name,
      groups: sql<string>`(SELECT json_group_array(g.name) FROM (SELECT g.name FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ug.user_id = "users"."id" ORDER BY g.name) g)`,
    })
    .from(users)
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(and(eq(users.id, sql.placeholder("id")), eq(users.accountId, sql.placeholder("accountId")))),
);

export const getCurrentUser: AppRouteHandler<typeof routes.getCurrentUser> = async (c) => {
  const principal = c.get("principal");
  // Effective privileges in catalogue order: what this very request was authorized with.
  const activeRoles = PRIVILEGES.filter((p) => hasPrivilege(principal, p));
  if (principal.kind === "supervisor") {
    const supervisor: CurrentUser = {
      id: principal.id,
      name: principal.name,
      fullname: null,
      email: null,
      accountId: null,
      account: null,
      activeGroups: [],
      roles: [],
      activeRoles,
      supervisor: true,
      signedInWith: "basic",
    };
    return c.json(supervisor, 200);
  }
  // One round trip: the user with its account's name and its groups' names.
  const row = await currentUser(c.get("db")).get({ id: principal.id, accountId: principal.accountId });
  // Deleted since another isolate cached its credentials (at most CREDENTIAL_CACHE_TTL_SECONDS): no longer anyone.
  if (!row) throw new ApiError("UNAUTHENTICATED", "The user no longer exists", { headers: { "WWW-Authenticate": 'Basic realm="api", charset="UTF-8"' } });
  const user: CurrentUser = {
    id: principal.id,
    name: row.name,
    fullname: row.fullName ?? null,
    email: row.email ?? null,
    accountId: principal.accountId,
    account: { id: principal.accountId, name: row.accountName },
    activeGroups: JSON.parse(row.groups) as string[],
    roles: row.roles as CurrentUser["roles"],
    activeRoles,
    supervisor: false,
    signedInWith: principal.via,
  };
  return c.json(user, 200);
};
