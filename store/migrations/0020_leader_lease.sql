CREATE TABLE `leader` (
	`id` integer PRIMARY KEY NOT NULL,
	`term` integer NOT NULL,
	`holder` text NOT NULL,
	`url` text NOT NULL,
	`since_ms` integer NOT NULL,
	`renewed_ms` integer NOT NULL,
	`expires_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `processes` (
	`holder` text PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`pid` integer NOT NULL,
	`started_ms` integer NOT NULL,
	`heartbeat_ms` integer NOT NULL
);
