-- No source or folder may name, as its owner, a user that does not exist in its account: a user's
-- delete moves or refuses what it owns (DELETE /api/users/{id}), and these refuse a row that would
-- name a user deleted meanwhile (a source created by a user while another request deletes it).
CREATE TRIGGER `sources_owner_exists_insert` BEFORE INSERT ON `sources`
WHEN NEW.`owner_user_id` IS NOT NULL AND NOT EXISTS (SELECT 1 FROM `users` WHERE `id` = NEW.`owner_user_id` AND `account_id` = NEW.`account_id`)
BEGIN SELECT RAISE(ABORT, 'owner_user_missing'); END;
--> statement-breakpoint
CREATE TRIGGER `sources_owner_exists_update` BEFORE UPDATE OF `owner_user_id` ON `sources`
WHEN NEW.`owner_user_id` IS NOT NULL AND NOT EXISTS (SELECT 1 FROM `users` WHERE `id` = NEW.`owner_user_id` AND `account_id` = NEW.`account_id`)
BEGIN SELECT RAISE(ABORT, 'owner_user_missing'); END;
--> statement-breakpoint
CREATE TRIGGER `folders_owner_exists_insert` BEFORE INSERT ON `folders`
WHEN NOT EXISTS (SELECT 1 FROM `users` WHERE `id` = NEW.`owner_user_id` AND `account_id` = NEW.`account_id`)
BEGIN SELECT RAISE(ABORT, 'owner_user_missing'); END;
--> statement-breakpoint
CREATE TRIGGER `folders_owner_exists_update` BEFORE UPDATE OF `owner_user_id` ON `folders`
WHEN NOT EXISTS (SELECT 1 FROM `users` WHERE `id` = NEW.`owner_user_id` AND `account_id` = NEW.`account_id`)
BEGIN SELECT RAISE(ABORT, 'owner_user_missing'); END;
--> statement-breakpoint
-- Grants to a user that no longer exists: none may be made (the user's delete removes its own), and
-- those left by deletes before this migration are removed.
CREATE TRIGGER `source_permissions_user_exists` BEFORE INSERT ON `source_permissions`
WHEN NEW.`principal_type` = 'USER' AND NOT EXISTS (SELECT 1 FROM `users` WHERE `id` = NEW.`principal_id` AND `account_id` = NEW.`account_id`)
BEGIN SELECT RAISE(ABORT, 'owner_user_missing'); END;
--> statement-breakpoint
CREATE TRIGGER `folder_acl_user_exists` BEFORE INSERT ON `folder_acl`
WHEN NEW.`principal_type` = 'USER' AND NOT EXISTS (SELECT 1 FROM `users` WHERE `id` = NEW.`principal_id` AND `account_id` = NEW.`account_id`)
BEGIN SELECT RAISE(ABORT, 'owner_user_missing'); END;
--> statement-breakpoint
DELETE FROM `source_permissions` WHERE `principal_type` = 'USER' AND `principal_id` NOT IN (SELECT `id` FROM `users`);
--> statement-breakpoint
DELETE FROM `folder_acl` WHERE `principal_type` = 'USER' AND `principal_id` NOT IN (SELECT `id` FROM `users`);
