ALTER TABLE "projects" ADD COLUMN "uid" text COLLATE "C" DEFAULT '' NOT NULL;--> statement-breakpoint
UPDATE "projects" SET "uid" = replace(gen_random_uuid()::text, '-', '') WHERE "uid" = '';
