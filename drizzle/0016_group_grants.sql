-- A group's grants go with it. Deleting a group (DELETE /api/groups/{id}, an import that removes it)
-- removes the source permissions and folder ACL entries naming it, and no grant may name a group that
-- does not exist in its account (a grant written while another request deletes the group), as
-- migration 0010 does for users. Grants left by deletes before this migration are removed.
CREATE TRIGGER `groups_grants_removed` AFTER DELETE ON `groups`
BEGIN
  DELETE FROM `source_permissions` WHERE `principal_type` = 'GROUP' AND `principal_id` = OLD.`id`;
  DELETE FROM `folder_acl` WHERE `principal_type` = 'GROUP' AND `principal_id` = OLD.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `source_permissions_group_exists` BEFORE INSERT ON `source_permissions`
WHEN NEW.`principal_type` = 'GROUP' AND NOT EXISTS (SELECT 1 FROM `groups` WHERE `id` = NEW.`principal_id` AND `account_id` = NEW.`account_id`)
BEGIN SELECT RAISE(ABORT, 'grantee_group_missing'); END;
--> statement-breakpoint
CREATE TRIGGER `folder_acl_group_exists` BEFORE INSERT ON `folder_acl`
WHEN NEW.`principal_type` = 'GROUP' AND NOT EXISTS (SELECT 1 FROM `groups` WHERE `id` = NEW.`principal_id` AND `account_id` = NEW.`account_id`)
BEGIN SELECT RAISE(ABORT, 'grantee_group_missing'); END;
--> statement-breakpoint
-- The grants naming a principal: a user's or group's delete finds its own without reading every grant.
CREATE INDEX `folder_acl_principal` ON `folder_acl` (`principal_id`);
--> statement-breakpoint
DELETE FROM `source_permissions` WHERE `principal_type` = 'GROUP' AND `principal_id` NOT IN (SELECT `id` FROM `groups`);
--> statement-breakpoint
DELETE FROM `folder_acl` WHERE `principal_type` = 'GROUP' AND `principal_id` NOT IN (SELECT `id` FROM `groups`);
