CREATE TABLE "console_sessions" (
	"hash" text COLLATE "C" PRIMARY KEY NOT NULL,
	"user_id" bigint NOT NULL,
	"csrf" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	"expires_at" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "password_hash" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "console_sessions_user" ON "console_sessions" USING btree ("user_id");