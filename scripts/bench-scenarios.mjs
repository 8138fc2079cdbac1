// The benchmark's data and scenarios. The first scenario is the floor the others are compared with.
import { folderBenchSql, folderScenarios, seedFolderBench } from "./bench-folders.mjs";
import { connectionScenarios, seedConnectionBench } from "./bench-connections.mjs";
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
  const calendars = await seedCalendars(api, admin);
  const dataset = await api("POST", "/api/json-datasets", { as: admin, body: JSON.parse(datasetBody(0)) });
  const bearer = await seedBearerToken(api, supervisor, admin);
  const folderBench = await seedFolderBench(api, supervisor, account, adminRow.id);
  const connectionBench = await seedConnectionBench(api, supervisor);
  return { account, admin, adminId: adminRow.id, adminGroupIds: [groupsByName.Administrators], withMetrics, large, editors, member, memberId: memberRow.id, calendars, dataset, bearer, folderBench, connectionBench };
}

/** A trusted-access client, and a bearer token it pulls for the account admin (valid a day: longer than any run). */
async function seedBearerToken(api, supervisor, admin) {
  const client = await api("POST", "/api/trusted-access/clients", { as: supervisor, body: { client_name: "Bench portal", access_token_validity_seconds: 86_400 } });
  const token = await api("POST", "/api/trusted-access/pull/tokens", { as: { username: client.client_id, password: client.client_secret }, body: { username: admin.username } });
  return token.access_token;
}

/** A JSON dataset body whose `data` is 1 MiB of flight records (about 12,000), a different version per `n`. */
function datasetBody(n) {
  const records = [];
  for (let i = 0, bytes = 0; bytes < 1_048_576; i++) {
    records.push(`{"id":${i},"carrier":"LH","price":${i % 1000}.50,"seats":180,"note":"v${n} €"}`);
    bytes += Buffer.byteLength(records.at(-1)) + 1;
  }
  return `{"name":"Flights dataset","data":{"records":[${records.join(",")}]}}`;
}

/** 50 calendars, every other one FISCAL_445 (the NRF 4-5-4 retail calendar), for E8, E9 and the periods rows. */
async function seedCalendars(api, admin) {
  const calendars = [];
  for (let i = 0; i < 50; i++) {
    const name = `Calendar ${String(i).padStart(2, "0")}`;
    const nrf = { yearEndWeekDay: "SATURDAY", yearEndsInLastWeek: false, yearEndIsoMonth: "JANUARY", quarterType: "QUARTER_454_WEEKS", leapWeekInMonth: 12 };
    const body = i % 2 ? { type: "FISCAL_445", name, fiscal445: nrf } : { type: "MONTH_SHIFT", name, monthShift: (i % 11) + 1 };
    calendars.push(await api("POST", "/api/calendars", { as: admin, body }));
  }
  return calendars;
}

/** 19,000 more native fields for the large source (20,000 in all), and the folder rows' libraries, as SQL. */
export function bulkSql({ account, large, folderBench }) {
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
  // The folder rows' 11,000 folders (scripts/bench-folders.mjs).
  statements.push(folderBenchSql(folderBench));
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
    // The same read with a trusted-access token: verifying it is one more D1 round trip, never cached.
    name: "E17 GET /api/quota/{accountId} (Bearer, account admin)",
    request: ({ account, bearer }) => ({ path: `/api/quota/${account.id}`, headers: { Authorization: `Bearer ${bearer}` } }),
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
    name: "E8 GET /api/calendars/{calendarId} (Basic, account admin)",
    request: ({ calendars, admin }) => ({ path: `/api/calendars/${calendars[1].id}`, headers: { Authorization: basicAuth(admin) } }),
    floor: ({ calendars, account }) => ({ path: `/floor/calendar?accountId=${account.id}&calendarId=${calendars[1].id}` }),
  },
  {
    name: "E9 GET /api/calendars (50 calendars)",
    request: ({ admin }) => ({ path: "/api/calendars", headers: { Authorization: basicAuth(admin) } }),
    floor: ({ account }) => ({ path: `/floor/calendars?accountId=${account.id}` }),
  },
  {
    name: "GET .../periods?type=DAY, 10 years (3,650 periods, 4-5-4)",
    request: ({ calendars, admin }) => ({ path: `/api/calendars/${calendars[1].id}/periods?from=2015-01-01&to=2024-12-28&type=DAY`, headers: { Authorization: basicAuth(admin) } }),
    floor: ({ calendars, account }) => ({ path: `/floor/calendar?accountId=${account.id}&calendarId=${calendars[1].id}` }),
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
  {
    name: "E5 PUT /api/json-datasets/{id} (1 MiB data)",
    request: ({ dataset, admin }) => {
      const bodies = [datasetBody(1), datasetBody(2)];
      let n = 0;
      return () => ({ method: "PUT", path: `/api/json-datasets/${dataset.id}`, headers: { ...json, Authorization: basicAuth(admin) }, body: bodies[n++ % 2] });
    },
  },
  {
    name: "GET /api/json-datasets/{id} (1 MiB data, streamed)",
    request: ({ dataset, admin }) => ({ path: `/api/json-datasets/${dataset.id}`, headers: { Authorization: basicAuth(admin) } }),
  },
  ...folderScenarios,
  ...connectionScenarios,
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
