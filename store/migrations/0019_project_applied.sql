ALTER TABLE `project_usage` ADD `applied_version` integer;--> statement-breakpoint
ALTER TABLE `project_usage` ADD `failure` text;