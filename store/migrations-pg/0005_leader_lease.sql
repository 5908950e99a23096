CREATE TABLE "leader" (
	"id" bigint PRIMARY KEY NOT NULL,
	"term" bigint NOT NULL,
	"holder" text COLLATE "C" NOT NULL,
	"url" text COLLATE "C" NOT NULL,
	"since_ms" bigint NOT NULL,
	"renewed_ms" bigint NOT NULL,
	"expires_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "processes" (
	"holder" text COLLATE "C" PRIMARY KEY NOT NULL,
	"url" text COLLATE "C" NOT NULL,
	"pid" bigint NOT NULL,
	"started_ms" bigint NOT NULL,
	"heartbeat_ms" bigint NOT NULL
);
