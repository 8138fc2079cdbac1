import { ACCOUNT_OWNED_TABLES } from "../account-owned";
import {
  accessTokens,
  accountMoves,
  accountMovingGuard,
  accounts,
  auditEvents,
  bearerGuard,
  connectionGuard,
  connectionTypeAccounts,
  connectionTypes,
  countLimitGuard,
  folderCycleGuard,
  folderTooDeepGuard,
  quotaGuard,
  trustedAccessClients,
  userNames,
  webhookDeliveries,
  webhookDispatched,
  webhooks,
  webhookSweep,
  writeConflictGuard,
} from "../schema";

/**
 * Which database holds each table's rows once accounts are spread over shards (issue 21). Every migration runs on every database,
 * so every table EXISTS everywhere; its role says where its rows LIVE. A unit test checks that each
 * table of the schema has exactly one role, so a new table must be placed here.
 */

/**
 * The directory: what is needed before the account is known, or belongs to no account.
 * - accounts: the list of tenants, and (to come) which shard holds each. Each shard also keeps a
 *   copy of its own accounts' rows, because the shard tables' foreign keys name accounts(id).
 * - access_tokens: a bearer request is looked up by the token's hash before its account is known.
 *   Its foreign key to users then crosses databases: deleting a user must delete its tokens here,
 *   and the bearer check (auth/bearer.ts), one query joining token, user and account today, splits
 *   into a directory part and a shard part.
 * - trusted_access_clients, connection_types: the supervisor's, owned by no account.
 * - connection_type_accounts: written with its type in the supervisor's batch, and read with the
 *   types (which ones an account may use); a connection's type is checked by the application.
 * - user_names: signing in with Basic credentials finds a user by name alone, so the directory keeps
 *   each name's account (user names are unique across the installation); users themselves stay on
 *   the shard, where the owner triggers and foreign keys of sources, folders and grants name them.
 * - account_moves: the move in progress of an account, which a restarted move resumes from.
 */
export const DIRECTORY_TABLES = [accounts, accessTokens, trustedAccessClients, connectionTypes, connectionTypeAccounts, userNames, accountMoves] as const;

/** The shards: every account-owned table (db/account-owned.ts) but the two above and webhooks (split, below), kept with their account. */
export const SHARD_TABLES = ACCOUNT_OWNED_TABLES.filter((t) => !(DIRECTORY_TABLES as readonly unknown[]).includes(t) && t !== webhooks);

/**
 * Rows split by account: an account's audit events commit in the same batch as its change
 * (db/audit-trail.ts), so they live on the account's shard and move with it; the events of
 * changes outside any account (account_id NULL: connection types, trusted-access clients) live in
 * the directory, beside what they describe.
 */
export const SPLIT_TABLES = [auditEvents, webhooks, webhookDeliveries, webhookDispatched] as const;

/**
 * Webhooks follow the events they deliver (docs/webhooks.md): an account's subscriptions, their
 * deliveries and the marks of dispatched events live on its shard with its audit events; the
 * supervisor's subscriptions (account_id NULL), for changes outside any account, in the directory.
 * webhook_sweep holds one row per database: how far the cron has swept that database's events.
 */
export const EVERY_DATABASE_TABLES = [webhookSweep] as const;

/**
 * Guard tables (db/batch-guards.ts) never hold a row: a batch inserts into one to fail itself, so
 * each must exist in whichever database runs the batch (all do: migrations run everywhere).
 */
export const GUARD_TABLES = [accountMovingGuard, quotaGuard, countLimitGuard, writeConflictGuard, bearerGuard, connectionGuard, folderCycleGuard, folderTooDeepGuard] as const;
