CREATE TABLE `sync_alarms` (
	`tenant_id` text NOT NULL,
	`alarm_id` text NOT NULL,
	`site_id` text NOT NULL,
	`severity` text NOT NULL,
	`state` text NOT NULL,
	`title` text NOT NULL,
	`correlation_id` text NOT NULL,
	`raised_at` text NOT NULL,
	`acknowledged_by` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `alarm_id`)
);
--> statement-breakpoint
CREATE INDEX `sync_alarms_state` ON `sync_alarms` (`state`);--> statement-breakpoint
CREATE TABLE `sync_heartbeats` (
	`tenant_id` text NOT NULL,
	`site_id` text NOT NULL,
	`seq` integer NOT NULL,
	`at` text NOT NULL,
	`interval_ms` integer NOT NULL,
	`rtt_ms` real,
	PRIMARY KEY(`tenant_id`, `site_id`, `seq`)
);
--> statement-breakpoint
CREATE INDEX `sync_heartbeats_at` ON `sync_heartbeats` (`at`);--> statement-breakpoint
CREATE TABLE `sync_inbox` (
	`tenant_id` text NOT NULL,
	`site_id` text NOT NULL,
	`seq` integer NOT NULL,
	`kind` text NOT NULL,
	`created_at` text NOT NULL,
	`received_at` text NOT NULL,
	`payload` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `site_id`, `seq`)
);
--> statement-breakpoint
CREATE INDEX `sync_inbox_kind` ON `sync_inbox` (`kind`,`created_at`);--> statement-breakpoint
CREATE TABLE `sync_outbox` (
	`seq` integer PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`created_at` text NOT NULL,
	`payload` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sync_sites` (
	`tenant_id` text NOT NULL,
	`site_id` text NOT NULL,
	`passkey_id` text NOT NULL,
	`industry_code` text,
	`registered_at` text NOT NULL,
	`last_seen_at` text,
	`applied_seq` integer NOT NULL,
	`events_received` integer NOT NULL,
	`reported_pending` integer NOT NULL,
	`reported_oldest_at` text,
	`down_revision` text,
	`last_rtt_ms` real,
	PRIMARY KEY(`tenant_id`, `site_id`)
);
--> statement-breakpoint
CREATE TABLE `sync_state` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sync_telemetry` (
	`tenant_id` text NOT NULL,
	`site_id` text NOT NULL,
	`device_id` text NOT NULL,
	`metric` text NOT NULL,
	`bucket` text NOT NULL,
	`points` integer NOT NULL,
	`sum` real NOT NULL,
	`min` real,
	`max` real,
	`last_status` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `site_id`, `device_id`, `metric`, `bucket`)
);
--> statement-breakpoint
CREATE INDEX `sync_telemetry_bucket` ON `sync_telemetry` (`bucket`);--> statement-breakpoint
CREATE TABLE `sync_tenants` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`mode` text NOT NULL,
	`lag_seconds` real NOT NULL,
	`pending_up` integer NOT NULL,
	`pending_down` integer NOT NULL,
	`pending` integer NOT NULL,
	`sites` integer NOT NULL,
	`sites_live` integer NOT NULL,
	`events_received` integer NOT NULL,
	`last_seen_at` text,
	`run_requested_at` text,
	`updated_at` text NOT NULL
);
