ALTER TABLE `rrsets` ADD `bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `zone_status` ADD `reason` text;--> statement-breakpoint
ALTER TABLE `zone_status` ADD `message` text;--> statement-breakpoint
ALTER TABLE `zones` ADD `rrset_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `zones` ADD `bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `zones` SET `rrset_count` = (SELECT count(*) FROM `rrsets` WHERE `rrsets`.`zone` = `zones`.`name`);
