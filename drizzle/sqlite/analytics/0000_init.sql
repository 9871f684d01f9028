CREATE TABLE `analytics_metrics` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`industry_code` text,
	`metric` text NOT NULL,
	`window` text NOT NULL,
	`value` real,
	`unit` text NOT NULL,
	`samples` integer NOT NULL,
	`computed_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `analytics_metrics_tenant` ON `analytics_metrics` (`tenant_id`,`metric`);