CREATE TABLE "leader" (
	"id" bigint PRIMARY KEY NOT NULL,
	"term" bigint NOT NULL,
	"holder" text NOT NULL,
	"url" text NOT NULL,
	"since_ms" bigint NOT NULL,
	"renewed_ms" bigint NOT NULL,
	"expires_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "processes" (
	"holder" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"pid" bigint NOT NULL,
	"started_ms" bigint NOT NULL,
	"heartbeat_ms" bigint NOT NULL
);
