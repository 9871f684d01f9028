CREATE TABLE `release_chunks` (
	`release_id` text NOT NULL,
	`arch` text NOT NULL,
	`idx` integer NOT NULL,
	`size` integer NOT NULL,
	`sha256` text NOT NULL,
	`bytes` blob NOT NULL,
	`stored_at` text NOT NULL,
	PRIMARY KEY(`release_id`, `arch`, `idx`)
);
--> statement-breakpoint
CREATE TABLE `release_packages` (
	`release_id` text NOT NULL,
	`arch` text NOT NULL,
	`size` integer,
	`sha256` text,
	`signed` text,
	`key_id` text,
	`chunk_size` integer NOT NULL,
	`chunks` integer,
	`complete` integer NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`release_id`, `arch`)
);
--> statement-breakpoint
CREATE TABLE `release_rollout_sites` (
	`rollout_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text NOT NULL,
	`wave` integer NOT NULL,
	`assigned_at` text NOT NULL,
	PRIMARY KEY(`rollout_id`, `tenant_id`, `site_id`)
);
--> statement-breakpoint
CREATE INDEX `release_rollout_sites_site` ON `release_rollout_sites` (`tenant_id`,`site_id`);--> statement-breakpoint
CREATE TABLE `release_rollouts` (
	`id` text PRIMARY KEY NOT NULL,
	`release_id` text NOT NULL,
	`canary_site_ids` text NOT NULL,
	`waves` text NOT NULL,
	`failure_threshold_percent` real NOT NULL,
	`proof_timeout_s` integer NOT NULL,
	`state` text NOT NULL,
	`wave` integer NOT NULL,
	`paused_reason` text,
	`accepted_failures` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`finished_at` text,
	`progress` text
);
--> statement-breakpoint
CREATE INDEX `release_rollouts_state` ON `release_rollouts` (`state`);--> statement-breakpoint
CREATE TABLE `releases` (
	`id` text PRIMARY KEY NOT NULL,
	`version` text NOT NULL,
	`notes` text NOT NULL,
	`state` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL,
	`published_at` text,
	`published_by` text,
	`withdrawn_at` text,
	`withdrawn_reason` text,
	`updated_at` text NOT NULL,
	`packages` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `releases_version_unique` ON `releases` (`version`);