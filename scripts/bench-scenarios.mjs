// The benchmark's scenarios, in order; the first is the floor the others are compared with.
// Each `prepare` seeds what it needs through the API and returns the request to repeat.
const basicAuth = ({ username, password }) => `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;

let seeded;
async function seed(api, supervisor) {
  if (seeded) return seeded;
  const account = await api("POST", "/api/accounts", { as: supervisor, body: { name: "Bench Inc" } });
  const admin = { username: "bench-admin", password: "bench-admin-password" };
  await api("POST", "/api/users", {
    as: supervisor,
    body: { name: admin.username, password: admin.password, accountId: account.id, groups: ["Administrators"] },
  });
  await api("PUT", "/api/quota", {
    as: supervisor,
    body: { accountId: account.id, quotas: [{ type: "SOURCE", limit: 100 }, { type: "CONNECTION", limit: 10 }] },
  });
  seeded = { account, admin };
  return seeded;
}

export const scenarios = [
  {
    name: "GET /api/health (no-op floor)",
    prepare: async () => ({ path: "/api/health" }),
  },
  {
    name: "E10 GET /api/accounts/name/{name} (Basic, supervisor)",
    prepare: async (api, supervisor) => {
      const { account } = await seed(api, supervisor);
      return { path: `/api/accounts/name/${encodeURIComponent(account.name)}`, headers: { Authorization: basicAuth(supervisor) } };
    },
  },
  {
    name: "E17 GET /api/quota/{accountId} (Basic, account admin)",
    prepare: async (api, supervisor) => {
      const { account, admin } = await seed(api, supervisor);
      return { path: `/api/quota/${account.id}`, headers: { Authorization: basicAuth(admin) } };
    },
  },
];
