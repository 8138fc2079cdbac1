import { describe, expect, it } from "vitest";
import { hasPrivilege, isAllowed, type Principal } from "../../../src/domain/principal";
import { holds, PRIVILEGES, resolvePrivileges, ungrantable } from "../../../src/domain/privileges";

const user = (privileges: string[]): Principal => ({
  kind: "user",
  id: "u1",
  name: "u",
  accountId: "a1",
  privileges: resolvePrivileges(privileges, []),
  groupIds: [],
  via: "basic",
});
const supervisor: Principal = { kind: "supervisor", id: "supervisor", name: "root" };

describe("privilege resolution", () => {
  it("is the union of the user's roles and its groups' privileges, ignoring unknown names", () => {
    const held = resolvePrivileges(["ROLE_EDIT_FORMULAS"], [["ROLE_CREATE_SOURCES"], ["ROLE_EDIT_FORMULAS", "ROLE_NOPE"]]);
    expect([...held].sort()).toEqual(["ROLE_CREATE_SOURCES", "ROLE_EDIT_FORMULAS"]);
  });

  it("gives an account admin every privilege", () => {
    const admin = resolvePrivileges([], [["ROLE_ADMIN"]]);
    for (const p of PRIVILEGES) expect(holds(admin, p)).toBe(true);
    expect(holds(resolvePrivileges(["ROLE_CREATE_SOURCES"], []), "ROLE_MANAGE_CONNECTIONS")).toBe(false);
  });

  it("lets nobody grant what it does not hold, and admins grant anything", () => {
    expect(ungrantable(resolvePrivileges(["ROLE_ADMINISTER_USERS"], []), ["ROLE_ADMIN", "ROLE_ADMINISTER_USERS"])).toEqual(["ROLE_ADMIN"]);
    expect(ungrantable(resolvePrivileges(["ROLE_ADMIN"], []), ["ROLE_ADMIN", "ROLE_MANAGE_CONNECTIONS"])).toEqual([]);
  });
});

describe("access rules", () => {
  it("separates supervisor authority from tenant privileges", () => {
    expect(isAllowed(supervisor, { kind: "supervisor" })).toBe(true);
    expect(isAllowed(user(["ROLE_ADMIN"]), { kind: "supervisor" })).toBe(false);
    expect(hasPrivilege(supervisor, "ROLE_ADMINISTER_USERS")).toBe(true);
    expect(hasPrivilege(supervisor, "ROLE_CREATE_SOURCES")).toBe(false);
  });

  it("lets the supervisor and account admins through accountAdmin, and no one else", () => {
    expect(isAllowed(supervisor, { kind: "accountAdmin" })).toBe(true);
    expect(isAllowed(user(["ROLE_ADMIN"]), { kind: "accountAdmin" })).toBe(true);
    expect(isAllowed(user(["ROLE_ADMINISTER_USERS"]), { kind: "accountAdmin" })).toBe(false);
  });

  it("lets every user of an account through accountMember, and not the supervisor, who belongs to none", () => {
    expect(isAllowed(user([]), { kind: "accountMember" })).toBe(true);
    expect(isAllowed(user(["ROLE_ADMIN"]), { kind: "accountMember" })).toBe(true);
    expect(isAllowed(supervisor, { kind: "accountMember" })).toBe(false);
  });

  it("checks a declared privilege", () => {
    expect(isAllowed(user(["ROLE_CREATE_SOURCES"]), { kind: "privilege", privilege: "ROLE_CREATE_SOURCES" })).toBe(true);
    expect(isAllowed(user([]), { kind: "privilege", privilege: "ROLE_CREATE_SOURCES" })).toBe(false);
    expect(isAllowed(user([]), { kind: "authenticated" })).toBe(true);
  });
});

describe("the supervisor's reserved name", () => {
  it("is reserved in every letter case and compatibility spelling, and only when a supervisor is configured", async () => {
    const { isSupervisorName } = await import("../../../src/domain/usernames");
    for (const name of ["supervisor", "SUPERVISOR", "Supervisor", "ＳＵＰＥＲＶＩＳＯＲ"]) expect(isSupervisorName(name, "supervisor"), name).toBe(true);
    expect(isSupervisorName("supervisor2", "supervisor")).toBe(false);
    expect(isSupervisorName("supervisor", undefined)).toBe(false);
  });
});
