CREATE TABLE `poultry_curve_follow` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text,
	`house_id` text NOT NULL,
	`enabled` integer NOT NULL,
	`interval_s` integer NOT NULL,
	`deadband` text NOT NULL,
	`paused` integer NOT NULL,
	`pause_reason` text,
	`pause_message` text,
	`alarm_id` text,
	`last_check_at` text,
	`last_write_at` text,
	`last_written` text,
	`last_correlation_id` text,
	`held` text,
	`held_at` text,
	`updated_by` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `poultry_curve_follow_house` ON `poultry_curve_follow` (`tenant_id`,`house_id`);