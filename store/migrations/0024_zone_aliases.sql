CREATE TABLE `zone_aliases` (
	`zone` text NOT NULL,
	`name` text NOT NULL,
	`target` text NOT NULL,
	`a` text NOT NULL,
	`aaaa` text NOT NULL,
	`ttl` integer NOT NULL,
	`resolved_at` text,
	`checked_at` text NOT NULL,
	`error` text,
	PRIMARY KEY(`zone`, `name`),
	FOREIGN KEY (`zone`) REFERENCES `zones`(`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `rrsets_zone_alias` ON `rrsets` (`zone`,`name`) WHERE type = 'ALIAS';