CREATE TABLE `domain_ledger` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`org_id` integer NOT NULL,
	`name` text NOT NULL,
	`at` text NOT NULL,
	`kind` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`note` text NOT NULL,
	`reference` text
);
--> statement-breakpoint
CREATE INDEX `domain_ledger_org_name` ON `domain_ledger` (`org_id`,`name`,`id`);--> statement-breakpoint
CREATE TABLE `domain_purchases` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` integer NOT NULL,
	`name` text NOT NULL,
	`years` integer NOT NULL,
	`payment_method` text NOT NULL,
	`contact_sealed` text,
	`step` text NOT NULL,
	`open` integer DEFAULT 1 NOT NULL,
	`amount_cents` integer,
	`currency` text,
	`charge_id` text,
	`actor` text NOT NULL,
	`last_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `domain_purchases_open_name` ON `domain_purchases` (`name`) WHERE open = 1;--> statement-breakpoint
CREATE INDEX `domain_purchases_org_name` ON `domain_purchases` (`org_id`,`name`);--> statement-breakpoint
CREATE TABLE `domains` (
	`name` text PRIMARY KEY NOT NULL,
	`org_id` integer NOT NULL,
	`uid` text NOT NULL,
	`status` text NOT NULL,
	`expires_at` text,
	`locked` integer DEFAULT false NOT NULL,
	`nameservers` text NOT NULL,
	`auto_renew` integer DEFAULT true NOT NULL,
	`payment_ref` text,
	`renewal` text,
	`synced_at` text,
	`generation` integer DEFAULT 1 NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `domains_org` ON `domains` (`org_id`,`name`);