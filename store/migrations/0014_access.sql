CREATE TABLE `access_codes` (
	`code_hash` text PRIMARY KEY NOT NULL,
	`host` text NOT NULL,
	`project_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`next` text NOT NULL,
	`expires_at` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `access_codes_expires` ON `access_codes` (`expires_at`);--> statement-breakpoint
CREATE TABLE `access_policies` (
	`project_id` integer PRIMARY KEY NOT NULL,
	`mode` text NOT NULL,
	`password_hash` text,
	`bypass_hash` text,
	`version` integer NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
