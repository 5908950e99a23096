CREATE TABLE `zone_revisions` (
	`zone` text NOT NULL,
	`generation` integer NOT NULL,
	`serial` integer NOT NULL,
	`at` text NOT NULL,
	`actor` text NOT NULL,
	`summary` text NOT NULL,
	`diff` text NOT NULL,
	PRIMARY KEY(`zone`, `generation`),
	FOREIGN KEY (`zone`) REFERENCES `zones`(`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `zone_revisions_at` ON `zone_revisions` (`at`);