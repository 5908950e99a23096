ALTER TABLE "project_usage" ADD COLUMN "applied_version" bigint;--> statement-breakpoint
ALTER TABLE "project_usage" ADD COLUMN "failure" text;