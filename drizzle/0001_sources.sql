CREATE TABLE `source_items` (
	`id` text PRIMARY KEY NOT NULL,
	`source_id` text NOT NULL,
	`account_id` text NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`data_type` text NOT NULL,
	`body` text NOT NULL,
	`revision` text DEFAULT (lower(hex(randomblob(8)))) NOT NULL,
	`created_by_user_id` text NOT NULL,
	`created_date` text NOT NULL,
	`last_modified_by_user_id` text NOT NULL,
	`last_modified_date` text NOT NULL,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "source_items_kind" CHECK("source_items"."kind" IN ('FIELD','METRIC'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `source_items_source_name_unique` ON `source_items` (`source_id`,`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `source_items_source_kind_name` ON `source_items` (`source_id`,`kind`,`name`);--> statement-breakpoint
CREATE TABLE `source_permissions` (
	`source_id` text NOT NULL,
	`account_id` text NOT NULL,
	`principal_type` text NOT NULL,
	`principal_id` text NOT NULL,
	`permission` text NOT NULL,
	PRIMARY KEY(`source_id`, `principal_type`, `principal_id`),
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "source_permissions_type" CHECK("source_permissions"."principal_type" IN ('USER','GROUP')),
	CONSTRAINT "source_permissions_permission" CHECK("source_permissions"."permission" IN ('READ','WRITE'))
);
--> statement-breakpoint
CREATE INDEX `source_permissions_principal` ON `source_permissions` (`principal_id`);--> statement-breakpoint
CREATE TABLE `source_references` (
	`source_id` text NOT NULL,
	`account_id` text NOT NULL,
	`user_name` text NOT NULL,
	`user_kind` text NOT NULL,
	`used_name` text NOT NULL,
	PRIMARY KEY(`source_id`, `user_name`, `used_name`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`source_id`,`user_name`) REFERENCES `source_items`(`source_id`,`name`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`source_id`,`used_name`) REFERENCES `source_items`(`source_id`,`name`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "source_references_kind" CHECK("source_references"."user_kind" IN ('DERIVED_FIELD','CUSTOM_METRIC','HIERARCHY'))
);
--> statement-breakpoint
CREATE INDEX `source_references_used` ON `source_references` (`source_id`,`used_name`);--> statement-breakpoint
CREATE TABLE `sources` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`connection_id` text,
	`features` text DEFAULT '[]' NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`owner_user_id` text,
	`fields_security_enabled` integer DEFAULT false NOT NULL,
	`custom_metrics_security_enabled` integer DEFAULT false NOT NULL,
	`revision` text DEFAULT (lower(hex(randomblob(8)))) NOT NULL,
	`created_by_user_id` text NOT NULL,
	`created_date` text NOT NULL,
	`last_modified_by_user_id` text NOT NULL,
	`last_modified_date` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sources_account_name_unique` ON `sources` (`account_id`,`name`);