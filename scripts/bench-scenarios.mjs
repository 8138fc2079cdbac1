// The benchmark's data and scenarios. The first scenario is the floor the others are compared with.
const basicAuth = ({ username, password }) => `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
const json = { "Content-Type": "application/json" };

const nativeField = (i) => ({
  name: `f${String(i).padStart(5, "0")}`,
  origin: { type: "NATIVE", nativeOrigin: { originalName: `col_${i}`, originalType: i % 2 ? "DECIMAL" : "VARCHAR" } },
});
const fieldBatch = (from, count) => Array.from({ length: count }, (_, k) => nativeField(from + k));

/** Seeds through the API: an account with an admin, a quota, and two sources of 1,000 fields (one with 200 metrics). */
export async function seed(api, supervisor) {
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
  const withMetrics = await api("POST", "/api/sources", { as: admin, body: { name: "Flights", fields: fieldBatch(0, 1000) } });
  for (let i = 0; i < 200; i++) {
    await api("PUT", `/api/sources/${withMetrics.id}/custom-metrics/m${String(i).padStart(3, "0")}`, {
      as: admin,
      body: { expression: `sum(f${String(2 * (i % 500) + 1).padStart(5, "0")}) / count(*)` },
    });
  }
  const large = await api("POST", "/api/sources", { as: admin, body: { name: "Large", fields: fieldBatch(0, 1000) } });

  // For the write rows: a group with members, and a user to replace.
  const editors = await api("POST", "/api/groups", { as: supervisor, body: { name: "Editors", accountId: account.id, privileges: ["ROLE_EDIT_FORMULAS"] } });
  const member = { username: "bench-member", password: "bench-member-password" };
  const memberRow = await api("POST", "/api/users", {
    as: supervisor,
    body: { name: member.username, password: member.password, accountId: account.id, groups: ["Users", "Editors"] },
  });
  const adminRow = (await api("GET", `/api/users?accountId=${account.id}&maxResults=1000`, { as: supervisor })).content.find((u) => u.name === admin.username);
  const groupsByName = Object.fromEntries(
    (await api("GET", `/api/groups?accountId=${account.id}&maxResults=1000`, { as: supervisor })).content.map((g) => [g.name, g.id]),
  );
  return { account, admin, adminId: adminRow.id, adminGroupIds: [groupsByName.Administrators], withMetrics, large, editors, member, memberId: memberRow.id };
}

/** 19,000 more native fields for the large source, as SQL (20,000 in all). */
export function bulkSql({ account, large }) {
  const now = new Date().toISOString();
  const q = (s) => `'${s.replaceAll("'", "''")}'`;
  const rows = [];
  for (let i = 1000; i < 20000; i++) {
    const f = nativeField(i);
    const dataType = i % 2 ? "NUMBER" : "ATTRIBUTE";
    const body = { origin: f.origin, label: `F${i}`, visible: true, defaultMetric: i % 2 ? "sum" : "count", granularity: null, disabledCapabilities: [], fieldMetadata: {} };
    rows.push(`(${q(crypto.randomUUID())},${q(large.id)},${q(account.id)},'FIELD',${q(f.name)},${q(dataType)},${q(JSON.stringify(body))},'bench','${now}','bench','${now}')`);
  }
  const statements = [];
  for (let i = 0; i < rows.length; i += 200) {
    statements.push(
      `INSERT INTO source_items (id, source_id, account_id, kind, name, data_type, body, created_by_user_id, created_date, last_modified_by_user_id, last_modified_date) VALUES\n${rows.slice(i, i + 200).join(",\n")};`,
    );
  }
  return statements.join("\n");
}

/**
 * Each scenario's `request` is sent to the API; a read's `floor` is the same D1 round trip sent to
 * the bare floor Worker (scripts/bench-floor/worker.js), which the read is compared with.
 */
export const scenarios = [
  {
    name: "GET /api/health (no-op, no D1)",
    request: () => ({ path: "/api/health" }),
  },
  {
    name: "E10 GET /api/accounts/name/{name} (Basic, supervisor)",
    request: ({ account }, supervisor) => ({ path: `/api/accounts/name/${encodeURIComponent(account.name)}`, headers: { Authorization: basicAuth(supervisor) } }),
    floor: ({ account }) => ({ path: `/floor/account-by-name?name=${encodeURIComponent(account.name)}` }),
  },
  {
    name: "E17 GET /api/quota/{accountId} (Basic, account admin)",
    request: ({ account, admin }) => ({ path: `/api/quota/${account.id}`, headers: { Authorization: basicAuth(admin) } }),
    floor: ({ account }) => ({ path: `/floor/quota?accountId=${account.id}` }),
  },
  {
    name: "E13 GET .../fields/{fieldName} (1,000 fields)",
    request: ({ withMetrics, admin }) => ({ path: `/api/sources/${withMetrics.id}/fields/f00421`, headers: { Authorization: basicAuth(admin) } }),
    floor: ({ withMetrics, account, adminId, adminGroupIds }) => ({
      path: `/floor/field?sourceId=${withMetrics.id}&accountId=${account.id}&userId=${adminId}&groupIds=${encodeURIComponent(JSON.stringify(adminGroupIds))}&fieldName=f00421`,
    }),
  },
  {
    name: "E1 PUT .../custom-metrics/{name} (update, 200 metrics)",
    request: ({ withMetrics, admin }) => {
      let n = 0;
      return () => ({
        method: "PUT",
        // Eight metrics in turn, so concurrent requests mostly update different rows.
        path: `/api/sources/${withMetrics.id}/custom-metrics/m04${n % 8}`,
        headers: { ...json, Authorization: basicAuth(admin) },
        body: JSON.stringify({ expression: `sum(f0${String(101 + 2 * (n++ % 400)).padStart(4, "0")}) / Volume`, label: "Bench metric" }),
      });
    },
  },
  {
    name: "GET .../fields page 1 of 100 (1,000 fields, 200 metrics)",
    request: ({ withMetrics, admin }) => ({ path: `/api/sources/${withMetrics.id}/fields?maxResults=100`, headers: { Authorization: basicAuth(admin) } }),
  },
  {
    name: "GET .../fields page 1 of 100 (20,000 fields)",
    request: ({ large, admin }) => ({ path: `/api/sources/${large.id}/fields?maxResults=100`, headers: { Authorization: basicAuth(admin) } }),
  },
  {
    name: "PUT /api/groups/{id} (description only, group with members)",
    request: ({ editors, account }, supervisor) => {
      let n = 0;
      return () => ({
        method: "PUT",
        path: `/api/groups/${editors.id}`,
        headers: { ...json, Authorization: basicAuth(supervisor) },
        body: JSON.stringify({ name: "Editors", accountId: account.id, privileges: ["ROLE_EDIT_FORMULAS"], description: `edit ${n++}` }),
      });
    },
  },
  {
    name: "PUT /api/users/{id} (replace, two groups)",
    request: ({ memberId, member, account }, supervisor) => ({
      method: "PUT",
      path: `/api/users/${memberId}`,
      headers: { ...json, Authorization: basicAuth(supervisor) },
      body: JSON.stringify({ name: member.username, accountId: account.id, groups: ["Users", "Editors"], fullName: "Bench Member" }),
    }),
  },
];

/** A member's request right after its group's description changed: it must stay a cached sign-in. */
export async function evictionProbe(send, { editors, account, member }, supervisor) {
  const read = { path: "/api/sources?maxResults=1", headers: { Authorization: basicAuth(member) } };
  await send(read);
  const warm = await send(read);
  const put = (description, privileges) => ({
    method: "PUT",
    path: `/api/groups/${editors.id}`,
    headers: { ...json, Authorization: basicAuth(supervisor) },
    body: JSON.stringify({ name: "Editors", accountId: account.id, privileges, description }),
  });
  await send(put("probe", ["ROLE_EDIT_FORMULAS"]));
  const afterDescription = await send(read);
  await send(put("probe", ["ROLE_EDIT_FORMULAS", "ROLE_CREATE_SOURCES"]));
  const afterPrivileges = await send(read);
  await send(put("probe", ["ROLE_EDIT_FORMULAS"]));
  return { warm, afterDescription, afterPrivileges };
}
