CREATE TABLE `notification_channels` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`enabled` integer NOT NULL,
	`smtp_host` text,
	`smtp_port` integer,
	`smtp_tls` text,
	`smtp_user` text,
	`smtp_from` text,
	`webhook_url` text,
	`secret_enc` text,
	`has_secret` integer NOT NULL,
	`site_name` text,
	`link_url` text,
	`retry_max_attempts` integer NOT NULL,
	`retry_base_ms` integer NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `notification_channels_tenant` ON `notification_channels` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `notification_cursors` (
	`tenant_id` text NOT NULL,
	`site_id` text NOT NULL,
	`seq` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `site_id`)
);
--> statement-breakpoint
CREATE TABLE `notification_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text,
	`rule_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`kind` text NOT NULL,
	`recipient` text NOT NULL,
	`alarm_id` text NOT NULL,
	`event` text NOT NULL,
	`escalation_level` integer NOT NULL,
	`priority` text,
	`severity` text NOT NULL,
	`subject` text NOT NULL,
	`text` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` text,
	`claimed_until` text,
	`last_error` text,
	`created_at` text NOT NULL,
	`sent_at` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `notification_deliveries_due` ON `notification_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `notification_deliveries_tenant` ON `notification_deliveries` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `notification_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text,
	`name` text NOT NULL,
	`channel_id` text NOT NULL,
	`recipients` text NOT NULL,
	`priorities` text NOT NULL,
	`severities` text NOT NULL,
	`min_escalation_level` integer NOT NULL,
	`max_escalation_level` integer,
	`on_raise` integer NOT NULL,
	`on_escalation` integer NOT NULL,
	`on_clear` integer NOT NULL,
	`enabled` integer NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `notification_rules_tenant` ON `notification_rules` (`tenant_id`,`enabled`);