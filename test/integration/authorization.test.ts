import { beforeAll, describe, expect, it } from "vitest";
import { PRIVILEGES } from "../../src/domain/privileges";
import {
  as,
  call,
  createAccount,
  createUser,
  dbSnapshot,
  expectError,
  expectUnauthenticated,
  type CallOptions,
  type CallResult,
  type TestUser,
} from "./helpers";

/**
 * Generated from the route table: every operation of the OpenAPI document is called with the
 * wrong caller, whatever its path. Nothing here names a route.
 */
const METHODS = ["get", "put", "post", "delete", "patch"];

interface Operation {
  method: string;
  path: string;
  access: string;
  stability?: string;
  hasBody: boolean;
}

let operations: Operation[];
let noPrivileges: TestUser;
let accountAdmin: TestUser;

beforeAll(async () => {
  const doc = (await call("GET", "/api/openapi.json", { as: null })).json;
  operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, access: op["x-access"], stability: op["x-stability"], hasBody: !!op.requestBody })),
  );
  const account = await createAccount();
  noPrivileges = await createUser(account.id, { groups: ["Users"] });
  accountAdmin = await createUser(account.id, { groups: ["Users", "Administrators"] });
});

/** The operation called with dummy path parameters, a minimal body and the preview header, as `who`. */
function invoke(op: Operation, who: CallOptions["as"]): Promise<CallResult> {
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => `dummy-${name}`);
  return call(op.method, path, {
    as: who,
    body: op.hasBody ? {} : undefined,
    headers: op.stability === "preview" ? { "X-Enable-Preview": "true" } : {},
  });
}

const needsPrivilege = (op: Operation) => op.access === "supervisor" || op.access === "accountAdmin" || (PRIVILEGES as readonly string[]).includes(op.access);

describe("authorization, generated from the OpenAPI document", () => {
  it("every operation's access rule is one the generator knows", () => {
    expect(operations.length).toBeGreaterThan(10);
    for (const op of operations) {
      expect(["public", "authenticated", "supervisor", "accountAdmin", ...PRIVILEGES], `${op.method} ${op.path}`).toContain(op.access);
    }
  });

  it("is enforced before validation and lookups, and a refused call changes nothing", async () => {
    const before = await dbSnapshot();
    const guarded = operations.filter(needsPrivilege);
    const supervisorOnly = guarded.filter((op) => op.access === "supervisor");
    expect(guarded.length).toBeGreaterThan(10);
    expect(supervisorOnly.length).toBeGreaterThan(5);

    for (const op of guarded) {
      // A user of a non-default account who holds no privilege at all.
      const res = await invoke(op, as(noPrivileges));
      expectError(res, 403, "FORBIDDEN");
      expect(res.json.path, `${op.method} ${op.path}`).toBe(op.path.replace(/\{([^}]+)\}/g, (_m, n: string) => `dummy-${n}`));
    }
    for (const op of supervisorOnly) {
      expectError(await invoke(op, as(accountAdmin)), 403, "FORBIDDEN");
    }

    expect(await dbSnapshot()).toEqual(before);
  });

  it("control: those who may call an operation get past authorization, whatever the dummy input then earns", async () => {
    for (const op of operations.filter(needsPrivilege)) {
      const res = await invoke(op, op.access === "supervisor" ? undefined : as(accountAdmin));
      expect(res.json?.errorCode, `${op.method} ${op.path}: ${res.text}`).not.toBe("FORBIDDEN");
      expect(res.status, `${op.method} ${op.path}`).toBeLessThan(500);
    }
  });

  it("every non-public operation without credentials is 401, and changes nothing", async () => {
    const before = await dbSnapshot();
    const protectedOps = operations.filter((op) => op.access !== "public");
    expect(protectedOps.length).toBeGreaterThan(10);
    for (const op of protectedOps) {
      const res = await invoke(op, null);
      expectUnauthenticated(res, op.path.replace(/\{([^}]+)\}/g, (_m, n: string) => `dummy-${n}`));
    }
    for (const op of operations.filter((o) => o.access === "public")) {
      expect((await invoke(op, null)).status, `${op.method} ${op.path}`).toBeLessThan(400);
    }
    expect(await dbSnapshot()).toEqual(before);
  });
});
