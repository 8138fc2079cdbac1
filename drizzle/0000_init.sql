CREATE TABLE `access_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`account_id` text NOT NULL,
	`client_id` text,
	`expires_at` integer NOT NULL,
	`created_date` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `access_tokens_user` ON `access_tokens` (`user_id`);--> statement-breakpoint
CREATE TABLE `accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`reply_to_address` text,
	`sender_display_name` text,
	`attributes` text DEFAULT '[]' NOT NULL,
	`revision` text DEFAULT (lower(hex(randomblob(8)))) NOT NULL,
	`created_by_user_id` text NOT NULL,
	`created_date` text NOT NULL,
	`last_modified_by_user_id` text NOT NULL,
	`last_modified_date` text NOT NULL,
	CONSTRAINT "accounts_default_enabled" CHECK(NOT ("accounts"."is_default" AND "accounts"."disabled"))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_name_unique` ON `accounts` (`name`);--> statement-breakpoint
CREATE TABLE `groups` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`privileges` text DEFAULT '[]' NOT NULL,
	`built_in` integer DEFAULT false NOT NULL,
	`revision` text DEFAULT (lower(hex(randomblob(8)))) NOT NULL,
	`created_by_user_id` text NOT NULL,
	`created_date` text NOT NULL,
	`last_modified_by_user_id` text NOT NULL,
	`last_modified_date` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `groups_account_name_unique` ON `groups` (`account_id`,`name`);--> statement-breakpoint
CREATE TABLE `quota_limits` (
	`account_id` text NOT NULL,
	`type` text NOT NULL,
	`limit_value` integer NOT NULL,
	PRIMARY KEY(`account_id`, `type`),
	FOREIGN KEY (`account_id`) REFERENCES `quotas`(`account_id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "quota_limits_type" CHECK("quota_limits"."type" IN ('CONNECTION','SOURCE','VISUAL','DASHBOARD','SELF_SERVICE_REPORT','SCHEDULE','FILE_SIZE')),
	CONSTRAINT "quota_limits_non_negative" CHECK("quota_limits"."limit_value" >= 0)
);
--> statement-breakpoint
CREATE TABLE `quotas` (
	`account_id` text PRIMARY KEY NOT NULL,
	`revision` text DEFAULT (lower(hex(randomblob(8)))) NOT NULL,
	`created_by_user_id` text NOT NULL,
	`created_date` text NOT NULL,
	`last_modified_by_user_id` text NOT NULL,
	`last_modified_date` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `user_groups` (
	`user_id` text NOT NULL,
	`group_id` text NOT NULL,
	`account_id` text NOT NULL,
	PRIMARY KEY(`user_id`, `group_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`group_id`) REFERENCES `groups`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `user_groups_group` ON `user_groups` (`group_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text NOT NULL,
	`full_name` text,
	`email` text,
	`roles` text DEFAULT '[]' NOT NULL,
	`password_algorithm` text NOT NULL,
	`password_iterations` integer NOT NULL,
	`password_salt` text NOT NULL,
	`password_hash` text NOT NULL,
	`revision` text DEFAULT (lower(hex(randomblob(8)))) NOT NULL,
	`created_by_user_id` text NOT NULL,
	`created_date` text NOT NULL,
	`last_modified_by_user_id` text NOT NULL,
	`last_modified_date` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "users_iterations_cap" CHECK("users"."password_iterations" BETWEEN 1 AND 100000)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_name_unique` ON `users` (`name`);--> statement-breakpoint
CREATE INDEX `users_account_name` ON `users` (`account_id`,`name`);--> statement-breakpoint
-- The built-in default account and its two groups exist from the first migration.
INSERT INTO `accounts` (`id`, `name`, `is_default`, `created_by_user_id`, `created_date`, `last_modified_by_user_id`, `last_modified_date`)
VALUES ('00000000-0000-4000-8000-000000000001', 'Default', 1, 'system', '2026-01-01T00:00:00.000Z', 'system', '2026-01-01T00:00:00.000Z');
--> statement-breakpoint
INSERT INTO `groups` (`id`, `account_id`, `name`, `description`, `privileges`, `built_in`, `created_by_user_id`, `created_date`, `last_modified_by_user_id`, `last_modified_date`)
VALUES
  ('00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000001', 'Administrators', 'Administrators of the account', '["ROLE_ADMIN"]', 1, 'system', '2026-01-01T00:00:00.000Z', 'system', '2026-01-01T00:00:00.000Z'),
  ('00000000-0000-4000-8000-000000000003', '00000000-0000-4000-8000-000000000001', 'Users', 'Every user of the account', '[]', 1, 'system', '2026-01-01T00:00:00.000Z', 'system', '2026-01-01T00:00:00.000Z');
