CREATE TABLE `audit` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`org_id` integer NOT NULL,
	`at` text NOT NULL,
	`event` text NOT NULL,
	`actor` text NOT NULL,
	`target` text NOT NULL,
	`details` text DEFAULT '{}' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_org` ON `audit` (`org_id`,`id`);--> statement-breakpoint
CREATE TABLE `auth_grants` (
	`project_id` integer PRIMARY KEY NOT NULL,
	`settings` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `changes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `hostnames` (
	`name` text PRIMARY KEY NOT NULL,
	`project_id` integer NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `hostnames_project` ON `hostnames` (`project_id`);--> statement-breakpoint
CREATE TABLE `memberships` (
	`org_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`role` text NOT NULL,
	PRIMARY KEY(`org_id`, `user_id`),
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `nodes` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `nodes_token_hash_unique` ON `nodes` (`token_hash`);--> statement-breakpoint
CREATE TABLE `orgs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`slug` text NOT NULL,
	`plan` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `orgs_slug_unique` ON `orgs` (`slug`);--> statement-breakpoint
CREATE TABLE `placements` (
	`project_id` integer NOT NULL,
	`node_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `node_id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `projects` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`org_id` integer NOT NULL,
	`name` text NOT NULL,
	`database` integer NOT NULL,
	`generation` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_org_name` ON `projects` (`org_id`,`name`);--> statement-breakpoint
CREATE TABLE `rrsets` (
	`zone` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`ttl` integer NOT NULL,
	`records` text NOT NULL,
	`managed_by` text,
	PRIMARY KEY(`zone`, `name`, `type`),
	FOREIGN KEY (`zone`) REFERENCES `zones`(`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `secrets` (
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`version` integer NOT NULL,
	`sealed` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `name`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `storage_grants` (
	`project_id` integer PRIMARY KEY NOT NULL,
	`prefix` text NOT NULL,
	`quota_bytes` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `storage_grants_prefix_unique` ON `storage_grants` (`prefix`);--> statement-breakpoint
CREATE TABLE `tokens` (
	`hash` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`email` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE TABLE `zone_status` (
	`zone` text PRIMARY KEY NOT NULL,
	`observed_generation` integer NOT NULL,
	`served_serial` integer,
	`last_error` text,
	`reconciled_at` text NOT NULL,
	`ds_observed` text,
	`delegated` integer
);
--> statement-breakpoint
CREATE TABLE `zones` (
	`name` text PRIMARY KEY NOT NULL,
	`org_id` integer NOT NULL,
	`dnssec` text NOT NULL,
	`ds` text NOT NULL,
	`serial` integer NOT NULL,
	`generation` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `zones_org` ON `zones` (`org_id`,`name`);