-- Issue 21: accounts spread over several D1 databases (docs/sharding.md). Every migration runs on
-- the directory and on every shard; these columns and tables are read where their role says.
-- accounts.shard (directory): the binding of the database holding the account's own rows; NULL is
-- the directory's own database, where every account lived before sharding.
ALTER TABLE `accounts` ADD `shard` text;--> statement-breakpoint
-- accounts.moving (the shard's copy of the account): 1 while a move copies the account away; every
-- write batch of the account is refused (409 ACCOUNT_MOVING) while it is set.
ALTER TABLE `accounts` ADD `moving` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `accounts_shard` ON `accounts` (`shard`);--> statement-breakpoint
-- The directory's record of a move in progress: a Worker that dies mid-move resumes from it. The
-- request running it holds it until lease_until; another may take it over only after.
CREATE TABLE `account_moves` (
	`account_id` text PRIMARY KEY NOT NULL,
	`from_shard` text NOT NULL,
	`to_shard` text NOT NULL,
	`phase` text NOT NULL,
	`started_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`lease_until` text NOT NULL,
	CONSTRAINT "account_moves_phase" CHECK("account_moves"."phase" IN ('COPYING', 'SWITCHED'))
);
--> statement-breakpoint
-- A write batch of an account being moved fails itself by inserting here (db/batch-guards.ts).
CREATE TABLE `account_moving_guard` (
	`reason` text NOT NULL,
	CONSTRAINT "account_moving" CHECK(0)
);
