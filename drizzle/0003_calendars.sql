CREATE TABLE `calendars` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`month_shift` integer,
	`fiscal445` text,
	`created_by_user_name` text NOT NULL,
	`revision` text DEFAULT (lower(hex(randomblob(8)))) NOT NULL,
	`created_by_user_id` text NOT NULL,
	`created_date` text NOT NULL,
	`last_modified_by_user_id` text NOT NULL,
	`last_modified_date` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "calendars_type_members" CHECK(("calendars"."type" = 'MONTH_SHIFT' AND "calendars"."month_shift" BETWEEN -11 AND 11 AND "calendars"."month_shift" <> 0 AND "calendars"."fiscal445" IS NULL)
        OR ("calendars"."type" = 'FISCAL_445' AND "calendars"."month_shift" IS NULL AND "calendars"."fiscal445" IS NOT NULL))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `calendars_account_name_unique` ON `calendars` (`account_id`,`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `calendars_account_id_unique` ON `calendars` (`account_id`,`id`);--> statement-breakpoint
CREATE TABLE `calendar_references` (
	`source_id` text NOT NULL,
	`item_name` text NOT NULL,
	`account_id` text NOT NULL,
	`calendar_id` text NOT NULL,
	PRIMARY KEY(`source_id`, `item_name`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`source_id`,`item_name`) REFERENCES `source_items`(`source_id`,`name`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`,`calendar_id`) REFERENCES `calendars`(`account_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `calendar_references_calendar` ON `calendar_references` (`account_id`,`calendar_id`);
