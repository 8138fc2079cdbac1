-- Trusted access: clients (the supervisor's objects, owned by no account), the attributes a client
-- pushes with a user, and access_tokens rebuilt with a public token_id and a client foreign key.
CREATE TABLE `trusted_access_clients` (
	`client_id` text PRIMARY KEY NOT NULL,
	`client_name` text NOT NULL,
	`access_token_validity_seconds` integer NOT NULL,
	`secret_digest` text NOT NULL,
	`client_secret_expires_at` integer DEFAULT 0 NOT NULL,
	`previous_secret_digest` text,
	`previous_secret_expires_at` integer,
	`account_ids` text,
	`revision` text DEFAULT (lower(hex(randomblob(8)))) NOT NULL,
	`created_by_user_id` text NOT NULL,
	`created_date` text NOT NULL,
	`last_modified_by_user_id` text NOT NULL,
	`last_modified_date` text NOT NULL,
	CONSTRAINT "trusted_access_clients_validity" CHECK("trusted_access_clients"."access_token_validity_seconds" BETWEEN 1 AND 2592000),
	CONSTRAINT "trusted_access_clients_secret_expiry" CHECK("trusted_access_clients"."client_secret_expires_at" >= 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `trusted_access_clients_name_unique` ON `trusted_access_clients` (`client_name`);--> statement-breakpoint
CREATE TABLE `user_attributes` (
	`user_id` text NOT NULL,
	`account_id` text NOT NULL,
	`attribute_key` text NOT NULL,
	`attribute_values` text NOT NULL,
	PRIMARY KEY(`user_id`, `attribute_key`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Until now no endpoint issued tokens, so access_tokens holds nothing worth keeping, and every token
-- must now name its client: the table is made again rather than altered (SQLite cannot add a
-- foreign key to an existing column).
DROP TABLE `access_tokens`;--> statement-breakpoint
CREATE TABLE `access_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`token_id` text NOT NULL,
	`user_id` text NOT NULL,
	`account_id` text NOT NULL,
	`client_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_date` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`client_id`) REFERENCES `trusted_access_clients`(`client_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `access_tokens_token_id_unique` ON `access_tokens` (`token_id`);--> statement-breakpoint
CREATE INDEX `access_tokens_user` ON `access_tokens` (`user_id`);--> statement-breakpoint
CREATE INDEX `access_tokens_account` ON `access_tokens` (`account_id`);--> statement-breakpoint
CREATE INDEX `access_tokens_client` ON `access_tokens` (`client_id`);--> statement-breakpoint
CREATE INDEX `access_tokens_expires` ON `access_tokens` (`expires_at`);
