CREATE TABLE `sla_profiles` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`response_minutes` integer NOT NULL,
	`resolution_minutes` integer NOT NULL,
	`escalation_policy` text NOT NULL,
	`status` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sla_profiles_status` ON `sla_profiles` (`status`);