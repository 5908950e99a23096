ALTER TABLE `secrets` ADD `uid` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `idempotency_keys_scope_created` ON `idempotency_keys` (`scope`,`created_at`);