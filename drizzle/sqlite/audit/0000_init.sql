CREATE TABLE `audit_records` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`actor` text NOT NULL,
	`action` text NOT NULL,
	`resource` text NOT NULL,
	`result` text NOT NULL,
	`correlation_id` text NOT NULL,
	`details` text,
	`recorded_by` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_records_tenant_created` ON `audit_records` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `audit_records_created` ON `audit_records` (`created_at`);--> statement-breakpoint
CREATE INDEX `audit_records_correlation` ON `audit_records` (`correlation_id`);