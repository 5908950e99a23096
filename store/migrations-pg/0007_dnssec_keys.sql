CREATE TABLE "dnssec_keys" (
	"zone" text COLLATE "C" NOT NULL,
	"key_id" text COLLATE "C" NOT NULL,
	"uid" text COLLATE "C" NOT NULL,
	"attrs" text COLLATE "C" NOT NULL,
	"sealed" text COLLATE "C" NOT NULL,
	CONSTRAINT "dnssec_keys_zone_key_id_pk" PRIMARY KEY("zone","key_id")
);
--> statement-breakpoint
CREATE TABLE "zone_served_serials" (
	"zone" text COLLATE "C" PRIMARY KEY NOT NULL,
	"serial" bigint NOT NULL
);
