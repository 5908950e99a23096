ALTER TABLE `zones` ADD `revision_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- The running total of the revisions zones keep today (store/zone-revisions.ts capZoneRevisions reads it).
UPDATE `zones` SET `revision_bytes` = (SELECT coalesce(sum(`bytes`), 0) FROM `zone_revisions` WHERE `zone_revisions`.`zone` = `zones`.`name`);
