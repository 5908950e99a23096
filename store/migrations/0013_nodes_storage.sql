CREATE TABLE `node_bundles` (
	`node_id` text PRIMARY KEY NOT NULL,
	`version` integer NOT NULL,
	`sealed` text NOT NULL,
	`sections` text NOT NULL,
	`built_at` text NOT NULL,
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `node_reports` (
	`node_id` text PRIMARY KEY NOT NULL,
	`applied_version` integer NOT NULL,
	`reported_at` text NOT NULL,
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `project_usage` (
	`project_id` integer NOT NULL,
	`node_id` text NOT NULL,
	`used_bytes` integer NOT NULL,
	`reported_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `node_id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `storage_prefixes` (
	`project_id` integer PRIMARY KEY NOT NULL,
	`prefix` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `storage_prefixes_prefix_unique` ON `storage_prefixes` (`prefix`);