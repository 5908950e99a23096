ALTER TABLE `tokens` ADD `name` text DEFAULT 'unnamed' NOT NULL;--> statement-breakpoint
ALTER TABLE `tokens` ADD `expires_at` text;