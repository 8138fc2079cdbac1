// The folder rows of the benchmark (npm run bench): 10,000 library folders on 6 levels with ACLs
// naming 20 principals, plus a library of 1,000 shaped the same, loaded as SQL while the Worker is
// stopped (through the API it would take minutes). The reader is a plain user: its permissions
// come from ACL entries on its user and its groups, as a folder administrator's would not.
const basicAuth = ({ username, password }) => `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;

const PRINCIPALS_PER_KIND = 10;
// Folders per level below a root: 60 children (the page the children rows read), then 4 each, then 1 each: 1,000 per root.
const LEVEL_SIZES = [1, 60, 240, 240, 240, 219];

/** Through the API: 10 groups and 10 users (the reader is user 0, in groups 0 and 1). */
export async function seedFolderBench(api, supervisor, account, ownerId) {
  const groupIds = [];
  for (let i = 0; i < PRINCIPALS_PER_KIND; i++) {
    groupIds.push((await api("POST", "/api/groups", { as: supervisor, body: { name: `Folder group ${i}`, accountId: account.id } })).id);
  }
  const reader = { username: "bench-folder-reader", password: "bench-folder-reader-password" };
  const userIds = [];
  for (let i = 0; i < PRINCIPALS_PER_KIND; i++) {
    const name = i === 0 ? reader.username : `bench-folder-user-${i}`;
    const groups = i === 0 ? ["Users", "Folder group 0", "Folder group 1"] : ["Users", `Folder group ${i}`];
    userIds.push((await api("POST", "/api/users", { as: supervisor, body: { name, password: reader.password, accountId: account.id, groups } })).id);
  }
  const dashboards = libraryPlan({ accountId: account.id, ownerId, groupIds, userIds, contentType: "DASHBOARDS", roots: 10 });
  const reports = libraryPlan({ accountId: account.id, ownerId, groupIds, userIds, contentType: "REPORTS", roots: 1 });
  return { reader, dashboards, reports };
}

/**
 * One library: `roots` trees of LEVEL_SIZES. Root r grants READ and CREATE to groups r and r+1 and
 * READ to users r and r+5 (mod 10): the reader sees 4 of 10 roots. Every fifth folder at depth 2 is
 * EXPLICIT, granting READ to one group only, so children pages and chains meet both kinds of ACL.
 */
function libraryPlan({ accountId, ownerId, groupIds, userIds, contentType, roots }) {
  const folders = [];
  const acl = [];
  const grant = (folderId, type, principalId, permission) => acl.push({ folderId, type, principalId, permission });
  for (let r = 0; r < roots; r++) {
    const projectId = crypto.randomUUID();
    let level = [folder({ accountId, ownerId, contentType, projectId, parent: null, name: `Root ${r}`, explicit: false })];
    folders.push(...level);
    const root = level[0];
    for (const g of [r, r + 1]) for (const p of ["READ", "CREATE"]) grant(root.id, "GROUP", groupIds[g % 10], p);
    for (const u of [r, r + 5]) grant(root.id, "USER", userIds[u % 10], "READ");
    for (let depth = 1; depth < LEVEL_SIZES.length; depth++) {
      const next = [];
      for (let i = 0; i < LEVEL_SIZES[depth]; i++) {
        const explicit = depth === 2 && i % 5 === 0;
        const made = folder({ accountId, ownerId, contentType, projectId, parent: level[i % level.length], name: `Folder ${depth}.${String(i).padStart(3, "0")}`, explicit });
        if (explicit) grant(made.id, "GROUP", groupIds[(i / 5) % 10], "READ");
        next.push(made);
      }
      folders.push(...next);
      level = next;
    }
  }
  // The reads' targets, in the first root (which the reader may READ): a deepest folder whose chain is all INHERIT.
  const first = folders.filter((f) => f.projectId === folders[0].projectId);
  const deepest = first.find((f) => f.depth === LEVEL_SIZES.length - 1 && !f.path.split("/").some((id) => first.find((x) => x.id === id)?.explicit));
  return { folders, acl, rootId: folders[0].id, deepestId: deepest.id };
}

function folder({ accountId, ownerId, contentType, projectId, parent, name, explicit }) {
  const id = crypto.randomUUID();
  return {
    id,
    accountId,
    ownerId,
    contentType,
    projectId,
    parentId: parent?.id ?? null,
    name,
    explicit,
    path: `${parent?.path ?? "/"}${id}/`,
    depth: parent ? parent.depth + 1 : 0,
  };
}

/** Both libraries as SQL, parents before children (the rows are in level order). */
export function folderBenchSql({ dashboards, reports }) {
  const now = new Date().toISOString();
  const q = (s) => (s === null ? "NULL" : `'${String(s).replaceAll("'", "''")}'`);
  const statements = [];
  for (const { folders, acl } of [dashboards, reports]) {
    const rows = folders.map(
      (f) =>
        `(${q(f.id)},${q(f.accountId)},${q(f.projectId)},'LIBRARY_CUSTOM',${q(f.parentId)},${q(f.name)},${q(f.path)},${f.depth},'CUSTOM',${q(f.contentType)},'CUSTOM',${q(f.explicit ? "EXPLICIT" : "INHERIT")},${q(f.ownerId)},${q(f.ownerId)},'${now}',${q(f.ownerId)},'${now}')`,
    );
    // 100 rows (about 45 KB) per statement: D1 takes at most 100,000 bytes per SQL statement.
    for (let i = 0; i < rows.length; i += 100) {
      statements.push(
        `INSERT INTO folders (id, account_id, project_id, project_type, parent_id, name, materialized_path, depth, folder_type, content_type, visibility, inheritance_state, owner_user_id, created_by_user_id, created_date, last_modified_by_user_id, last_modified_date) VALUES\n${rows.slice(i, i + 100).join(",\n")};`,
      );
    }
    const aclRows = acl.map((a) => `(${q(a.folderId)},${q(folders[0].accountId)},${q(a.type)},${q(a.principalId)},${q(a.permission)})`);
    for (let i = 0; i < aclRows.length; i += 400) {
      statements.push(`INSERT INTO folder_acl (folder_id, account_id, principal_type, principal_id, permission) VALUES\n${aclRows.slice(i, i + 400).join(",\n")};`);
    }
  }
  return statements.join("\n");
}

const asReader = ({ folderBench }) => ({ Authorization: basicAuth(folderBench.reader), "X-Enable-Preview": "true" });

export const folderScenarios = [
  {
    name: "E2 GET /api/folders/tree (10,000 folders, 20 principals)",
    request: (seeded) => ({ path: "/api/folders/tree?content_type=DASHBOARDS", headers: asReader(seeded) }),
  },
  {
    name: "GET /api/folders/{id}/children page of 50 (1,000 folders)",
    request: (seeded) => ({ path: `/api/folders/${seeded.folderBench.reports.rootId}/children?page_size=50`, headers: asReader(seeded) }),
  },
  {
    name: "GET /api/folders/{id}/children page of 50 (10,000 folders)",
    request: (seeded) => ({ path: `/api/folders/${seeded.folderBench.dashboards.rootId}/children?page_size=50`, headers: asReader(seeded) }),
  },
  {
    name: "GET /api/folders/{id}/path (depth 5, 10,000 folders)",
    request: (seeded) => ({ path: `/api/folders/${seeded.folderBench.dashboards.deepestId}/path`, headers: asReader(seeded) }),
  },
  {
    name: "GET /api/folders/{id} (permission check at depth 5)",
    request: (seeded) => ({ path: `/api/folders/${seeded.folderBench.dashboards.deepestId}`, headers: asReader(seeded) }),
  },
];
