CREATE TABLE `resource_status` (
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`uid` text NOT NULL,
	`observed_generation` integer NOT NULL,
	`conditions` text NOT NULL,
	`facts` text NOT NULL,
	`last_error` text,
	`reconciled_at` text NOT NULL,
	PRIMARY KEY(`kind`, `key`)
);
--> statement-breakpoint
CREATE TABLE `zone_finalizers` (
	`uid` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`deleted_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `zone_finalizers_name` ON `zone_finalizers` (`name`);--> statement-breakpoint
ALTER TABLE `zones` ADD `uid` text DEFAULT '' NOT NULL;--> statement-breakpoint
UPDATE `zones` SET `uid` = lower(hex(randomblob(16)));