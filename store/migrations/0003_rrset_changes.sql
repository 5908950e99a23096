CREATE TABLE `rrset_tombstones` (
	`zone` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`gen` integer NOT NULL,
	PRIMARY KEY(`zone`, `name`, `type`)
);
--> statement-breakpoint
ALTER TABLE `rrsets` ADD `changed_gen` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `rrsets_zone_changed` ON `rrsets` (`zone`,`changed_gen`);