ALTER TABLE `auth_grants` ADD `grant_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `orgs` ADD `members_version` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
UPDATE `auth_grants` SET `grant_id` = lower(hex(randomblob(16))) WHERE `grant_id` = '';
