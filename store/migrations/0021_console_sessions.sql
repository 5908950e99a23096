CREATE TABLE `console_sessions` (
	`hash` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`csrf` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `console_sessions_user` ON `console_sessions` (`user_id`);--> statement-breakpoint
ALTER TABLE `users` ADD `password_hash` text;