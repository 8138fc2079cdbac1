import { ACCOUNT_OWNED_TABLES } from "../account-owned";
import {
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
 * - accounts: the list of tenants, and which shard holds each (`shard`). Each shard also keeps a
 *   copy of its own accounts' rows, because the shard tables' foreign keys name accounts(id).
 * - trusted_access_clients, connection_types: the supervisor's, owned by no account. Every other
 *   shard keeps a stub of each client, which its tokens' foreign key names (db/shards/clients.ts).
 * - connection_type_accounts: written with its type in the supervisor's batch, and read with the
 *   types (which ones an account may use). Every other shard keeps a copy of each type and of its
 *   whole list (db/shards/directory-copies.ts): its connections' foreign key to their type, and its
 *   users' reads of the types their account may use, work on the shard.
 * - account_moves: the move in progress of an account, which a restarted move resumes from.
 * - user_names: every user's name, unique across the shards (db/shards/user-names.ts).
 *
 * Users and access_tokens stay on the shard: the owner triggers and foreign keys of sources,
 * folders and grants name users, and the bearer check joins a token to its user. A cold Basic
 * sign-in is placed by user_names; a bearer token this isolate has not verified yet asks every
 * shard at once (db/shards/routing.ts).
 */
export const DIRECTORY_TABLES = [accounts, userNames, trustedAccessClients, connectionTypes, connectionTypeAccounts, accountMoves] as const;

/** The shards: every account-owned table (db/account-owned.ts) but the directory's above and webhooks (split, below), kept with their account. */
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
