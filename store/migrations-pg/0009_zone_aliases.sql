CREATE TABLE "zone_aliases" (
	"zone" text COLLATE "C" NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"target" text COLLATE "C" NOT NULL,
	"a" text COLLATE "C" NOT NULL,
	"aaaa" text COLLATE "C" NOT NULL,
	"ttl" bigint NOT NULL,
	"resolved_at" text COLLATE "C",
	"checked_at" text COLLATE "C" NOT NULL,
	"error" text COLLATE "C",
	CONSTRAINT "zone_aliases_zone_name_pk" PRIMARY KEY("zone","name")
);
--> statement-breakpoint
ALTER TABLE "zone_aliases" ADD CONSTRAINT "zone_aliases_zone_zones_name_fk" FOREIGN KEY ("zone") REFERENCES "public"."zones"("name") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "rrsets_zone_alias" ON "rrsets" USING btree ("zone","name") WHERE type = 'ALIAS';