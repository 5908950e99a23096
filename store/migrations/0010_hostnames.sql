CREATE TABLE `hostname_finalizers` (
	`uid` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`org_id` integer NOT NULL,
	`deleted_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `hostname_finalizers_name` ON `hostname_finalizers` (`name`);--> statement-breakpoint
ALTER TABLE `hostnames` ADD `uid` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `hostnames` ADD `token` text;--> statement-breakpoint
ALTER TABLE `hostnames` ADD `generation` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `hostnames` ADD `verified_at` text;--> statement-breakpoint
ALTER TABLE `hostnames` ADD `proof` text;