ALTER TABLE `projects` ADD `uid` text DEFAULT '' NOT NULL;--> statement-breakpoint
UPDATE `projects` SET `uid` = lower(hex(randomblob(16))) WHERE `uid` = '';
