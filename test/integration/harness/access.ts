import { PRIVILEGES, SUPERVISOR_TENANT_PRIVILEGES, type Privilege } from "../../../src/domain/privileges";
import { as, call, createAccount, createAccountApart, createUser, PASSWORD, SUPERVISOR, type Credentials } from "../helpers";
import type { Operation } from "./document";
import type { World } from "./fixtures";

/**
 * Who may call what, computed from an operation's `x-access` and `x-object-permission` and the
 * privilege catalogue (PRIVILEGES, SUPERVISOR_TENANT_PRIVILEGES), written down here from the
 * rules in docs/accounts-users-groups.md rather than taken from src/domain/principal.ts, so the matrix checks the
 * implementation instead of repeating it.
 */
export type CallerKind = "anonymous" | "noPrivilege" | "onePrivilege" | "accountAdmin" | "supervisor" | "disabledAccount" | "trustedClient";

export interface Caller {
  label: string;
  kind: CallerKind;
  credentials: Credentials;
  /** Privileges of a user caller (a `onePrivilege` user holds exactly one, through `roles`). */
  privileges: readonly Privilege[];
  /** Headers of each request (made anew every time), e.g. its own client address. */
  headers?: () => Record<string, string>;
}

/** "passes": neither 401 nor 403 (the handler's own answer); otherwise the refusal's status. */
export type Expected = "passes" | 401 | 403;

export const ACCESS_RULES = ["public", "authenticated", "accountMember", "supervisor", "accountAdmin", "trustedClient", ...PRIVILEGES] as const;

/**
 * Object permissions the handlers check (`x-object-permission`), and who holds them on the
 * fixture objects: those are owned by the world's account admin and nobody holds a grant, so
 * only administrators of that account do (admins have WRITE on every source of their account;
 * the supervisor belongs to no account and holds none).
 */
export const OBJECT_PERMISSIONS: Record<string, (caller: Caller) => boolean> = {
  "source:READ": (caller) => isAdmin(caller),
  "source:WRITE": (caller) => isAdmin(caller),
  "source:EDIT_METRICS": (caller) => isAdmin(caller),
  // Fixture folders are made by the world's admin and grant READ to the Users group, which every user caller is in.
  "folder:READ": () => true,
  "folder:WRITE": (caller) => holds(caller, "ROLE_ADMINISTER_FOLDERS"),
  "folder:DELETE": (caller) => holds(caller, "ROLE_ADMINISTER_FOLDERS"),
  "folder:ADMINISTER": (caller) => holds(caller, "ROLE_ADMINISTER_FOLDERS") || holds(caller, "ROLE_PERMISSION_FOLDERS"),
  // The registry's POST body makes a root.
  "folder:CREATE": (caller) => holds(caller, "ROLE_CREATE_FOLDERS"),
};

const isAdmin = (caller: Caller) => caller.privileges.includes("ROLE_ADMIN");
const holds = (caller: Caller, privilege: Privilege) => isAdmin(caller) || caller.privileges.includes(privilege);

export function expectedOutcome(op: Pick<Operation, "key" | "access" | "objectPermission">, caller: Caller): Expected {
  if (op.access === "public") return "passes";
  // Client credentials open the token endpoints, and only them; users' and the supervisor's never do.
  if (op.access === "trustedClient" || caller.kind === "trustedClient") return op.access === "trustedClient" && caller.kind === "trustedClient" ? "passes" : 401;
  if (caller.kind === "anonymous" || caller.kind === "disabledAccount") return 401;
  const supervisor = caller.kind === "supervisor";
  let allowed: boolean;
  if (op.access === "authenticated") allowed = true;
  // Objects that live inside an account: every user of one, never the supervisor (a member of none).
  else if (op.access === "accountMember") allowed = !supervisor;
  else if (op.access === "supervisor") allowed = supervisor;
  else if (op.access === "accountAdmin") allowed = supervisor || isAdmin(caller);
  else if ((PRIVILEGES as readonly string[]).includes(op.access)) {
    const privilege = op.access as Privilege;
    allowed = supervisor ? SUPERVISOR_TENANT_PRIVILEGES.includes(privilege) : holds(caller, privilege);
  } else throw new Error(`${op.key}: x-access "${op.access}" is unknown to the privilege matrix; teach harness/access.ts`);
  if (!allowed) return 403;
  if (op.objectPermission) {
    const rule = OBJECT_PERMISSIONS[op.objectPermission];
    if (!rule) throw new Error(`${op.key}: x-object-permission "${op.objectPermission}" is unknown; add it to OBJECT_PERMISSIONS in harness/access.ts`);
    if (!rule(caller)) return 403;
  }
  return "passes";
}

/**
 * Every caller level of the matrix, made through the API: nobody, a user with no privilege,
 * one user per privilege holding only that one (through `roles`), an administrator (through the
 * Administrators group), the supervisor, and an administrator of a DISABLED account.
 */
export async function createCallers(world: World): Promise<Caller[]> {
  const user = async (label: string, kind: CallerKind, privileges: Privilege[], groups = ["Users"]) => {
    const created = await createUser(world.account.id, { name: world.name(label), roles: kind === "onePrivilege" ? privileges : [], groups });
    return { label, kind, credentials: as(created), privileges } satisfies Caller;
  };
  const callers: Caller[] = [
    { label: "anonymous", kind: "anonymous", credentials: null, privileges: [] },
    await user("noPrivilege", "noPrivilege", []),
  ];
  for (const privilege of PRIVILEGES) callers.push(await user(`only_${privilege}`, "onePrivilege", [privilege]));
  callers.push({ label: "accountAdmin", kind: "accountAdmin", credentials: as(world.admin), privileges: ["ROLE_ADMIN"] });
  callers.push({ label: "supervisor", kind: "supervisor", credentials: SUPERVISOR, privileges: [] });
  callers.push(await disabledAccountAdmin(world));
  callers.push(trustedClientCaller(world));
  return callers;
}

let clientAddresses = 0;

/**
 * The world's trusted-access client, by its client_id and secret: they open the token endpoints
 * (`trustedClient`) and nothing else, since they are no user's. Everywhere else each request of it
 * is a failed Basic login, so it comes from an address of its own: the login throttle (tested in
 * auth.test.ts) would otherwise answer 429 instead of 401 after ten.
 */
export function trustedClientCaller(world: World): Caller {
  const address = () => ({ "CF-Connecting-IP": `10.254.${(clientAddresses >> 8) & 255}.${clientAddresses++ & 255}` });
  return { label: "trustedClient", kind: "trustedClient", credentials: world.client, privileges: [], headers: address };
}

/**
 * An administrator of another account, which is then disabled: it cannot sign in any more. Over
 * several databases the account is on another shard than the world's (its sign-in is placed there).
 */
export async function disabledAccountAdmin(world: World): Promise<Caller> {
  const account = await createAccountApart(world.account.id, () => createAccount(world.name("Disabled")));
  const admin = await createUser(account.id, { name: world.name("disabledAdmin"), groups: ["Users", "Administrators"], password: PASSWORD });
  const res = await call("PUT", `/api/accounts/${account.id}`, { body: { name: account.name, disabled: true } });
  if (res.status !== 200) throw new Error(`could not disable the account: ${res.status} ${res.text}`);
  return { label: "disabledAccountAdmin", kind: "disabledAccount", credentials: as(admin), privileges: ["ROLE_ADMIN"] };
}

/** The caller the suites use to exercise an operation as someone allowed: the world's client on the token endpoints, else its admin, else the supervisor. */
export function allowedCaller(op: Operation, world: World): Credentials {
  if (op.access === "trustedClient") return world.client;
  const admin: Caller = { label: "accountAdmin", kind: "accountAdmin", credentials: as(world.admin), privileges: ["ROLE_ADMIN"] };
  return expectedOutcome(op, admin) === "passes" ? admin.credentials : SUPERVISOR;
}
