CREATE TABLE `feed_consumers` (
	`id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`seen_at` text NOT NULL
);
