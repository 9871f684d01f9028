CREATE TABLE `industry_alarm_events` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text,
	`industry_code` text NOT NULL,
	`unit_id` text,
	`batch_id` text,
	`rule_id` text,
	`metric` text,
	`value` real,
	`severity` text NOT NULL,
	`priority` text,
	`status` text NOT NULL,
	`source` text NOT NULL,
	`title` text NOT NULL,
	`message` text,
	`correlation_id` text NOT NULL,
	`sla_target_sec` integer,
	`sla_deadline_at` text,
	`sla_breached` integer NOT NULL,
	`escalation_level` integer NOT NULL,
	`bridged_to_status` integer NOT NULL,
	`assignee` text,
	`acked_by` text,
	`acked_at` text,
	`escalated_at` text,
	`cleared_at` text,
	`raised_at` text NOT NULL,
	`details` text
);
--> statement-breakpoint
CREATE INDEX `industry_alarm_events_tenant_raised` ON `industry_alarm_events` (`tenant_id`,`raised_at`);--> statement-breakpoint
CREATE INDEX `industry_alarm_events_open_rule` ON `industry_alarm_events` (`tenant_id`,`industry_code`,`unit_id`,`rule_id`,`status`);--> statement-breakpoint
CREATE INDEX `industry_alarm_events_deadline` ON `industry_alarm_events` (`status`,`sla_deadline_at`);--> statement-breakpoint
CREATE INDEX `industry_alarm_events_correlation` ON `industry_alarm_events` (`correlation_id`);