CREATE TABLE `status_events` (
	`id` integer PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`site_id` text,
	`source` text NOT NULL,
	`event` text NOT NULL,
	`status` text NOT NULL,
	`correlation_id` text,
	`details` text,
	`timestamp` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `status_events_tenant_id` ON `status_events` (`tenant_id`,`id`);--> statement-breakpoint
CREATE INDEX `status_events_timestamp` ON `status_events` (`timestamp`);--> statement-breakpoint
CREATE INDEX `status_events_correlation` ON `status_events` (`correlation_id`);--> statement-breakpoint
CREATE TABLE `status_sequence` (
	`name` text PRIMARY KEY NOT NULL,
	`value` integer NOT NULL
);
