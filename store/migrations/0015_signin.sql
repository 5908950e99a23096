CREATE TABLE `auth_providers` (
	`project_id` integer NOT NULL,
	`provider` text NOT NULL,
	`client_id` text NOT NULL,
	`sealed_secret` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `provider`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
