-- Issue 21: each shard keeps a copy of every connection type and of its list of accounts
-- (connection_type_accounts), so that the shard's connections keep their foreign key to their type
-- and its queries read which types an account may use (docs/sharding.md, "Connection types").
-- A shard holds the rows of its own accounts only, so a copy of the list names accounts that live
-- elsewhere: the list's foreign key to accounts goes. Deleting an account deletes its rows of the
-- list explicitly (db/account-owned.ts did already; the directory's part of a deletion and the other
-- shards' copies too, db/shards/directory-copies.ts), and a list written names existing accounts
-- only (its insert fails on NOT NULL for an account missing from the directory).
CREATE TABLE `__new_connection_type_accounts` (
	`type_id` text NOT NULL,
	`account_id` text NOT NULL,
	PRIMARY KEY(`type_id`, `account_id`),
	FOREIGN KEY (`type_id`) REFERENCES `connection_types`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_connection_type_accounts` (`type_id`, `account_id`) SELECT `type_id`, `account_id` FROM `connection_type_accounts`;--> statement-breakpoint
DROP TABLE `connection_type_accounts`;--> statement-breakpoint
ALTER TABLE `__new_connection_type_accounts` RENAME TO `connection_type_accounts`;--> statement-breakpoint
CREATE INDEX `connection_type_accounts_account` ON `connection_type_accounts` (`account_id`);
