ALTER TABLE `rrset_tombstones` ADD `at` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `zones` ADD `tombstones_pruned_to` integer DEFAULT 0 NOT NULL;