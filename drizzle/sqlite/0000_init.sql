CREATE TABLE `forms_items` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`data` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `forms_items_tenant_created` ON `forms_items` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`key` text NOT NULL,
	`principal` text NOT NULL,
	`fingerprint` text NOT NULL,
	`status` integer NOT NULL,
	`body` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`key`, `principal`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_created_at` ON `idempotency_keys` (`created_at`);--> statement-breakpoint
CREATE TABLE `tables_items` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`data` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `tables_items_tenant_created` ON `tables_items` (`tenant_id`,`created_at`);