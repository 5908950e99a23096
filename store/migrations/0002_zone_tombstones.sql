CREATE TABLE `zone_tombstones` (
	`name` text PRIMARY KEY NOT NULL,
	`serial` integer NOT NULL
);
