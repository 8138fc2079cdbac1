CREATE TABLE `json_datasets` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`data_version` text NOT NULL,
	`data_bytes` integer NOT NULL,
	`chunk_count` integer NOT NULL,
	`revision` text DEFAULT (lower(hex(randomblob(8)))) NOT NULL,
	`created_by_user_id` text NOT NULL,
	`created_date` text NOT NULL,
	`last_modified_by_user_id` text NOT NULL,
	`last_modified_date` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "json_datasets_sizes" CHECK("json_datasets"."data_bytes" >= 0 AND "json_datasets"."chunk_count" >= 1)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `json_datasets_account_name_unique` ON `json_datasets` (`account_id`,`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `json_datasets_account_id_unique` ON `json_datasets` (`account_id`,`id`);--> statement-breakpoint
CREATE TABLE `json_dataset_chunks` (
	`dataset_id` text NOT NULL,
	`account_id` text NOT NULL,
	`version` text NOT NULL,
	`seq` integer NOT NULL,
	`data` text NOT NULL,
	PRIMARY KEY(`dataset_id`, `version`, `seq`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`,`dataset_id`) REFERENCES `json_datasets`(`account_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `count_limit_guard` (
	`reason` text NOT NULL,
	CONSTRAINT "count_limit_reached" CHECK(0)
);
--> statement-breakpoint
CREATE TABLE `write_conflict_guard` (
	`reason` text NOT NULL,
	CONSTRAINT "write_conflict" CHECK(0)
);
