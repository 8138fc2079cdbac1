import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createAccount, createUser, dbSnapshot, type Credentials, type TestUser } from "./helpers";
import { bearerFor, createClient, expireClientSecret, expireToken, type TestClient } from "./trusted-access-helpers";

/**
 * A fuzz of the token endpoints and of bearer sign-in (fast-check, fixed seed): broken or wrong
 * client credentials, expired secrets, deleted clients, dead tokens (expired, revoked, of a deleted
 * user) and bodies naming another account (or a user of a disabled one). Never a 5xx, never a
 * token, and nothing changes.
 */
const SEED = 20261124;

let a: { id: string; name: string };
let b: { id: string; name: string };
let userOfA: TestUser;
let userOfB: TestUser;
let disabled: { id: string; name: string };
let userOfDisabled: TestUser;
let servesA: TestClient;
let servesAll: TestClient;
let expired: TestClient;
let deleted: TestClient;
let deadTokens: string[];

beforeAll(async () => {
  a = await createAccount();
  b = await createAccount();
  userOfA = await createUser(a.id, { groups: ["Users", "Administrators"] });
  userOfB = await createUser(b.id);
  disabled = await createAccount();
  userOfDisabled = await createUser(disabled.id);
  await call("PUT", `/api/accounts/${disabled.id}`, { body: { name: disabled.name, disabled: true } });
  servesA = await createClient({ account_ids: [a.id] });
  servesAll = await createClient();
  expired = await createClient();
  await expireClientSecret(expired.clientId);
  deleted = await createClient();
  await call("DELETE", `/api/trusted-access/clients/${deleted.clientId}`);

  const timedOut = await bearerFor(servesAll, userOfA.username);
  await expireToken(timedOut.tokenId);
  const revoked = await bearerFor(servesAll, userOfA.username);
  await call("DELETE", `/api/trusted-access/tokens/${revoked.tokenId}`);
  const leaver = await createUser(a.id);
  const orphaned = await bearerFor(servesAll, leaver.username);
  await call("DELETE", `/api/users/${leaver.id}`);
  deadTokens = [timedOut.bearer, revoked.bearer, orphaned.bearer];
});

interface Attempt {
  label: string;
  method: string;
  path: string;
  authorization?: string;
  as?: Credentials;
  body?: unknown;
}

const TOKEN_PATHS = ["/api/trusted-access/push/tokens", "/api/trusted-access/pull/tokens"];
const ascii = (maxLength: number) => fc.string({ unit: "grapheme-ascii", maxLength });

/** A valid-looking body for either token endpoint, with a username and account drawn from what exists. */
const tokenBody = () =>
  fc.record(
    {
      username: fc.oneof(fc.constantFrom(userOfA.username, userOfB.username), ascii(20)),
      account: fc.oneof(fc.constantFrom(a.name, b.name), ascii(20)),
      fullname: ascii(20),
      groups: fc.array(fc.constantFrom("Users", "Administrators", "Nope"), { maxLength: 3 }),
    },
    { requiredKeys: ["username"] },
  );

function attempts(): fc.Arbitrary<Attempt> {
  const endpoint = fc.constantFrom(...TOKEN_PATHS);
  const badBasic = fc.tuple(
    endpoint,
    fc.oneof(
      fc.constantFrom("Basic", "Basic ", "Basic !!!", "Basic Og==", "basic", "Digest x", "Bearer", ""),
      ascii(40).map((raw) => `Basic ${btoa(raw)}`),
      ascii(40).map((raw) => `Basic ${raw}`),
      fc.uuid().map((id) => `Basic ${btoa(`${id}:`)}`),
    ),
    tokenBody(),
  );
  const wrongCredentials = fc.tuple(
    endpoint,
    fc.oneof(
      ascii(60).map((secret) => ({ username: servesA.clientId, password: secret || "x" })),
      fc.constant({ username: servesA.clientId, password: servesAll.clientSecret }),
      fc.uuid().map((id) => ({ username: id, password: servesA.clientSecret })),
      fc.constant(expired.credentials),
      fc.constant(deleted.credentials),
      fc.constant({ username: userOfA.username, password: userOfA.password }),
    ),
    tokenBody(),
  );
  const deadToken = fc.tuple(
    fc.constantFrom(...deadTokens),
    fc.constantFrom("GET /api/users", `GET /api/quota/${a.id}`, "GET /api/trusted-access/clients", "POST /api/trusted-access/pull/tokens"),
  );
  // Authenticated clients, naming an account they may not use, or a user of another account.
  const otherAccount = fc.oneof(
    tokenBody().map((body) => ({ client: servesA, path: TOKEN_PATHS[0]!, body: { ...body, account: b.name } })),
    tokenBody().map((body) => ({ client: servesA, path: TOKEN_PATHS[1]!, body: { ...body, username: userOfB.username } })),
    fc.constant({ client: servesAll, path: TOKEN_PATHS[1]!, body: { username: userOfB.username, account: a.name } }),
    // A user of a disabled account gets no token either.
    fc.constantFrom(...TOKEN_PATHS).map((path) => ({ client: servesAll, path, body: { username: userOfDisabled.username, account: disabled.name } })),
    tokenBody().map((body) => ({ client: servesAll, path: TOKEN_PATHS[0]!, body: { ...body, username: userOfB.username, account: a.name } })),
  );
  return fc.oneof(
    badBasic.map(([path, authorization, body]) => ({ label: `bad Basic ${JSON.stringify(authorization)}`, method: "POST", path, authorization, body })),
    wrongCredentials.map(([path, credentials, body]) => ({ label: `wrong client credentials ${credentials.username}`, method: "POST", path, as: credentials, body })),
    deadToken.map(([token, route]) => {
      const [method, path] = route.split(" ") as [string, string];
      return { label: `dead token on ${route}`, method, path, as: { bearer: token }, body: method === "POST" ? { username: userOfA.username } : undefined };
    }),
    otherAccount.map(({ client, path, body }) => ({ label: `another account's name or user via ${path}`, method: "POST", path, as: client.credentials, body })),
  );
}

let addresses = 0;

describe("fuzz of the token endpoints and bearer sign-in", () => {
  it("never a 5xx, never a token, nothing changed", async () => {
    const before = await dbSnapshot();
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(attempts(), async (attempt) => {
        // Each from its own address: the throttle would otherwise turn the later 401s into 429s.
        const n = addresses++;
        const headers: Record<string, string> = { "CF-Connecting-IP": `10.77.${(n >> 8) & 255}.${n & 255}` };
        if (attempt.authorization !== undefined) headers.Authorization = attempt.authorization;
        const res = await call(attempt.method, attempt.path, { as: attempt.authorization !== undefined ? null : attempt.as, body: attempt.body, headers });
        seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
        expect(res.status, `${attempt.label}: ${res.text}`).toBeGreaterThanOrEqual(400);
        expect(res.status, attempt.label).toBeLessThan(500);
        expect(res.text, attempt.label).not.toContain("access_token");
      }),
      { seed: SEED, numRuns: 300 },
    );
    expect(await dbSnapshot()).toEqual(before);
    // Every kind of refusal was reached: the fuzz is not vacuous.
    expect([...seen.keys()].sort()).toEqual(expect.arrayContaining([400, 401, 403]));
    const tokens = await env.DB.prepare("SELECT count(*) AS n FROM access_tokens WHERE account_id = ?").bind(b.id).first<{ n: number }>();
    expect(tokens!.n).toBe(0);
  }, 120_000);

  it("the same requests with the right credentials do get tokens (the refusals above were for the reasons fuzzed)", async () => {
    expect((await call("POST", TOKEN_PATHS[1]!, { as: servesA.credentials, body: { username: userOfA.username } })).status).toBe(200);
    expect((await call("POST", TOKEN_PATHS[1]!, { as: servesAll.credentials, body: { username: userOfB.username, account: b.name } })).status).toBe(200);
  });
});
