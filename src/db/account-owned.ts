import { eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "./client";
import { accessTokens, accountMoves, accounts, calendarReferences, calendars, connections, connectionTypeAccounts, folderAcl, folderItems, folders, folderTreeState, groups, jsonDatasetChunks, jsonDatasets, materializedViews, quotaLimits, quotas, sourceItems, sourcePermissions, sourceReferences, sources, userAttributes, userGroups, userNames, users, webhooks } from "./schema";

/**
 * Everything an account owns, children before parents. Deleting an account deletes these
 * rows and then the account in one D1 batch (one transaction). Every new tenant-owned
 * table must be added here (a test checks that each table with an account_id column is).
 */
export const ACCOUNT_OWNED_TABLES = [
  // Names a source and a connection of the account, which it keeps from being deleted: it goes first.
  materializedViews,
  // Its deliveries go with it (ON DELETE CASCADE).
  webhooks,
  folderTreeState,
  folderItems,
  folderAcl,
  folders,
  jsonDatasetChunks,
  jsonDatasets,
  calendarReferences,
  sourceReferences,
  sourceItems,
  calendars,
  sourcePermissions,
  sources,
  connections,
  connectionTypeAccounts,
  accessTokens,
  // The directory's record of the account's move in progress (db/shards).
  accountMoves,
  // The directory's claims of its users' names (db/shards/user-names.ts).
  userNames,
  userAttributes,
  userGroups,
  quotaLimits,
  quotas,
  users,
  groups,
] as const;

export function deleteAccountStatements(db: Database, accountId: string): [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]] {
  return [
    ...ACCOUNT_OWNED_TABLES.map((table) => db.delete(table).where(eq(table.accountId, accountId))),
    db.delete(accounts).where(eq(accounts.id, accountId)),
  ] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];
}
