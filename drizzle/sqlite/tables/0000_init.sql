CREATE TABLE `tables_items` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`data` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `tables_items_tenant_created` ON `tables_items` (`tenant_id`,`created_at`);