CREATE TABLE `audit_events` (
	`id` text PRIMARY KEY NOT NULL,
	`time` text NOT NULL,
	`account_id` text,
	`actor_type` text NOT NULL,
	`actor_id` text,
	`actor_name` text NOT NULL,
	`actor_authentication` text NOT NULL,
	`action` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text,
	`target_name` text,
	`changes` text,
	`request_id` text NOT NULL,
	`ip` text,
	`user_agent` text
);
--> statement-breakpoint
CREATE INDEX `audit_events_account` ON `audit_events` (`account_id`,`id`);--> statement-breakpoint
CREATE INDEX `audit_events_account_action` ON `audit_events` (`account_id`,`action`,`id`);--> statement-breakpoint
CREATE INDEX `audit_events_account_target` ON `audit_events` (`account_id`,`target_type`,`target_id`,`id`);--> statement-breakpoint
CREATE INDEX `audit_events_account_actor_id` ON `audit_events` (`account_id`,`actor_id`,`id`);--> statement-breakpoint
CREATE INDEX `audit_events_account_actor_name` ON `audit_events` (`account_id`,`actor_name`,`id`);--> statement-breakpoint
CREATE INDEX `audit_events_request` ON `audit_events` (`request_id`);--> statement-breakpoint
-- Every account's built-in Administrators group holds ROLE_VIEW_AUDIT, as new accounts' do.
UPDATE `groups` SET `privileges` = json_insert(`privileges`, '$[#]', 'ROLE_VIEW_AUDIT') WHERE `built_in` = 1 AND `name` = 'Administrators' AND NOT EXISTS (SELECT 1 FROM json_each(`groups`.`privileges`) WHERE value = 'ROLE_VIEW_AUDIT');
