CREATE TABLE "zone_revisions" (
	"zone" text COLLATE "C" NOT NULL,
	"generation" bigint NOT NULL,
	"serial" bigint NOT NULL,
	"at" text COLLATE "C" NOT NULL,
	"actor" text COLLATE "C" NOT NULL,
	"summary" text COLLATE "C" NOT NULL,
	"diff" text COLLATE "C" NOT NULL,
	CONSTRAINT "zone_revisions_zone_generation_pk" PRIMARY KEY("zone","generation")
);
--> statement-breakpoint
ALTER TABLE "zone_revisions" ADD CONSTRAINT "zone_revisions_zone_zones_name_fk" FOREIGN KEY ("zone") REFERENCES "public"."zones"("name") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "zone_revisions_at" ON "zone_revisions" USING btree ("at");