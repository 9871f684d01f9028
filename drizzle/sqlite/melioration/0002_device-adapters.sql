CREATE TABLE `melioration_adapter_profiles` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text,
	`unit_id` text NOT NULL,
	`controller_id` text NOT NULL,
	`transport` text NOT NULL,
	`host` text,
	`port` integer,
	`serial_path` text,
	`modbus_unit_id` integer,
	`device_instance` integer,
	`points` text NOT NULL,
	`readings` text,
	`poll_period_s` integer,
	`loss_after_misses` integer,
	`comm_loss_priority` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `melioration_adapter_profiles_unit` ON `melioration_adapter_profiles` (`tenant_id`,`unit_id`);--> statement-breakpoint
ALTER TABLE `melioration_soil_moisture` ADD `reading_source` text;--> statement-breakpoint
ALTER TABLE `melioration_weather` ADD `reading_source` text;