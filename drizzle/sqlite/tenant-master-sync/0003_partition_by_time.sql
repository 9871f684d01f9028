PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_sync_heartbeats` (
	`tenant_id` text NOT NULL,
	`site_id` text NOT NULL,
	`seq` integer NOT NULL,
	`at` text NOT NULL,
	`interval_ms` integer NOT NULL,
	`rtt_ms` real,
	PRIMARY KEY(`tenant_id`, `site_id`, `seq`, `at`)
);
--> statement-breakpoint
INSERT INTO `__new_sync_heartbeats`("tenant_id", "site_id", "seq", "at", "interval_ms", "rtt_ms") SELECT "tenant_id", "site_id", "seq", "at", "interval_ms", "rtt_ms" FROM `sync_heartbeats`;--> statement-breakpoint
DROP TABLE `sync_heartbeats`;--> statement-breakpoint
ALTER TABLE `__new_sync_heartbeats` RENAME TO `sync_heartbeats`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `sync_heartbeats_at` ON `sync_heartbeats` (`at`);--> statement-breakpoint
CREATE TABLE `__new_sync_inbox` (
	`tenant_id` text NOT NULL,
	`site_id` text NOT NULL,
	`seq` integer NOT NULL,
	`kind` text NOT NULL,
	`created_at` text NOT NULL,
	`received_at` text NOT NULL,
	`payload` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `site_id`, `seq`, `received_at`)
);
--> statement-breakpoint
INSERT INTO `__new_sync_inbox`("tenant_id", "site_id", "seq", "kind", "created_at", "received_at", "payload") SELECT "tenant_id", "site_id", "seq", "kind", "created_at", "received_at", "payload" FROM `sync_inbox`;--> statement-breakpoint
DROP TABLE `sync_inbox`;--> statement-breakpoint
ALTER TABLE `__new_sync_inbox` RENAME TO `sync_inbox`;--> statement-breakpoint
CREATE INDEX `sync_inbox_kind` ON `sync_inbox` (`kind`,`created_at`);