-- Issue 21: user names unique across shards (docs/sharding.md, "User names"). Each shard's
-- users_name_unique index holds its own users only; the directory's user_names holds every name of
-- the installation, claimed before a shard's write gives a user that name (db/shards/user-names.ts).
-- No foreign keys: the users and accounts a row names may live on another database.
CREATE TABLE `user_names` (
	`name` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`account_id` text NOT NULL,
	`claimed_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `user_names_user` ON `user_names` (`user_id`);--> statement-breakpoint
CREATE INDEX `user_names_account` ON `user_names` (`account_id`);--> statement-breakpoint
-- The names of the users this database holds. On the directory's database (every account's, before
-- sharding) that is every name there is; a shard's own copy of the table is never read.
INSERT INTO `user_names` (`name`, `user_id`, `account_id`, `claimed_at`) SELECT `name`, `id`, `account_id`, `created_date` FROM `users`;
