-- Materialized views (deprecated since 23.1). Written by hand; src/db/schema/materialized-views.ts
-- describes the same table (test/integration/schema.test.ts compares them).
-- The parent key of a view's source: (account_id, id), so a view names a source of its own account.
CREATE UNIQUE INDEX `sources_account_id_unique` ON `sources` (`account_id`,`id`);--> statement-breakpoint
CREATE TABLE `materialized_views` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`enabled` integer DEFAULT true NOT NULL,
	`source_id` text NOT NULL,
	`definition` text NOT NULL,
	`storage_settings` text,
	`target_connection_id` text,
	`definition_query` text NOT NULL,
	`revision` text DEFAULT (lower(hex(randomblob(8)))) NOT NULL,
	`created_by_user_id` text NOT NULL,
	`created_date` text NOT NULL,
	`last_modified_by_user_id` text NOT NULL,
	`last_modified_date` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	-- No action on delete: a source or connection that a view names cannot be deleted.
	FOREIGN KEY (`account_id`,`source_id`) REFERENCES `sources`(`account_id`,`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`,`target_connection_id`) REFERENCES `connections`(`account_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `materialized_views_account_name_unique` ON `materialized_views` (`account_id`,`name`);--> statement-breakpoint
CREATE INDEX `materialized_views_source` ON `materialized_views` (`account_id`,`source_id`);--> statement-breakpoint
CREATE INDEX `materialized_views_connection` ON `materialized_views` (`account_id`,`target_connection_id`);
