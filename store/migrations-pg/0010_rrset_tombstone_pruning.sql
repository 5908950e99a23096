ALTER TABLE "rrset_tombstones" ADD COLUMN "at" text COLLATE "C" DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "zones" ADD COLUMN "tombstones_pruned_to" bigint DEFAULT 0 NOT NULL;