CREATE TABLE `dnssec_keys` (
	`zone` text NOT NULL,
	`key_id` text NOT NULL,
	`uid` text NOT NULL,
	`attrs` text NOT NULL,
	`sealed` text NOT NULL,
	PRIMARY KEY(`zone`, `key_id`)
);
--> statement-breakpoint
CREATE TABLE `zone_served_serials` (
	`zone` text PRIMARY KEY NOT NULL,
	`serial` integer NOT NULL
);
