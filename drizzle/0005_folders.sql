CREATE TABLE `folders` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`project_id` text NOT NULL,
	`project_type` text NOT NULL,
	`parent_id` text,
	`name` text NOT NULL,
	`description` text,
	`materialized_path` text NOT NULL,
	`depth` integer NOT NULL,
	`folder_type` text NOT NULL,
	`content_type` text,
	`visibility` text NOT NULL,
	`inheritance_state` text NOT NULL,
	`owner_user_id` text NOT NULL,
	`revision` text DEFAULT (lower(hex(randomblob(8)))) NOT NULL,
	`created_by_user_id` text NOT NULL,
	`created_date` text NOT NULL,
	`last_modified_by_user_id` text NOT NULL,
	`last_modified_date` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`parent_id`) REFERENCES `folders`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "folders_root_depth" CHECK(("folders"."parent_id" IS NULL) = ("folders"."depth" = 0) AND "folders"."depth" >= 0),
	CONSTRAINT "folders_path_ends_with_id" CHECK(substr("folders"."materialized_path", -length("folders"."id") - 1) = "folders"."id" || '/'),
	CONSTRAINT "folders_folder_type" CHECK("folders"."folder_type" IN ('CONNECTIONS','SOURCES','VISUALS','DASHBOARDS','REPORTS','PRIVATE','CUSTOM')),
	CONSTRAINT "folders_content_type" CHECK("folders"."content_type" IS NULL OR "folders"."content_type" IN ('DASHBOARDS','REPORTS')),
	CONSTRAINT "folders_visibility" CHECK("folders"."visibility" IN ('PRIVATE','CUSTOM')),
	CONSTRAINT "folders_inheritance_state" CHECK("folders"."inheritance_state" IN ('INHERIT','EXPLICIT')),
	CONSTRAINT "folders_project_type" CHECK("folders"."project_type" IN ('DEFAULT','GLOBAL','CUSTOM','PERSONAL','LIBRARY_CUSTOM'))
);
--> statement-breakpoint
CREATE INDEX `folders_parent_name` ON `folders` (`parent_id`,`name`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `folders_path` ON `folders` (`materialized_path`);--> statement-breakpoint
CREATE INDEX `folders_roots` ON `folders` (`account_id`,`content_type`,`name`) WHERE parent_id IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `folders_private_root` ON `folders` (`account_id`,`owner_user_id`,`content_type`) WHERE folder_type = 'PRIVATE';--> statement-breakpoint
CREATE TABLE `folder_acl` (
	`folder_id` text NOT NULL,
	`account_id` text NOT NULL,
	`principal_type` text NOT NULL,
	`principal_id` text NOT NULL,
	`permission` text NOT NULL,
	PRIMARY KEY(`folder_id`, `principal_type`, `principal_id`, `permission`),
	FOREIGN KEY (`folder_id`) REFERENCES `folders`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "folder_acl_principal_type" CHECK("folder_acl"."principal_type" IN ('USER','GROUP')),
	CONSTRAINT "folder_acl_permission" CHECK("folder_acl"."permission" IN ('READ','WRITE','CREATE','DELETE','ADMINISTER'))
);
--> statement-breakpoint
CREATE TABLE `folder_items` (
	`account_id` text NOT NULL,
	`item_type` text NOT NULL,
	`item_id` text NOT NULL,
	`folder_id` text NOT NULL,
	`name` text NOT NULL,
	`filed_by_user_id` text NOT NULL,
	`filed_date` text NOT NULL,
	PRIMARY KEY(`account_id`, `item_type`, `item_id`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`folder_id`) REFERENCES `folders`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "folder_items_item_type" CHECK("folder_items"."item_type" IN ('DASHBOARD','REPORT'))
);
--> statement-breakpoint
CREATE INDEX `folder_items_folder_name` ON `folder_items` (`folder_id`,`name`,`item_type`,`item_id`);--> statement-breakpoint
CREATE TABLE `folder_tree_state` (
	`user_id` text NOT NULL,
	`folder_id` text NOT NULL,
	`account_id` text NOT NULL,
	PRIMARY KEY(`user_id`, `folder_id`),
	FOREIGN KEY (`folder_id`) REFERENCES `folders`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `folder_tree_state_folder` ON `folder_tree_state` (`folder_id`);--> statement-breakpoint
CREATE TABLE `folder_cycle_guard` (
	`reason` text NOT NULL,
	CONSTRAINT "folder_cycle" CHECK(0)
);
--> statement-breakpoint
CREATE TABLE `folder_too_deep_guard` (
	`reason` text NOT NULL,
	CONSTRAINT "folder_too_deep" CHECK(0)
);
