ALTER TABLE `hostname_finalizers` ADD `project_id` integer;--> statement-breakpoint
CREATE INDEX `hostname_finalizers_project` ON `hostname_finalizers` (`project_id`);--> statement-breakpoint
ALTER TABLE `projects` ADD `deleting_since` text;