CREATE TABLE `swine_adapter_profiles` (
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
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `swine_adapter_profiles_unit` ON `swine_adapter_profiles` (`tenant_id`,`unit_id`);--> statement-breakpoint
CREATE TABLE `swine_setpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text NOT NULL,
	`room_id` text NOT NULL,
	`target_temp_c` real,
	`heating_start_c` real,
	`min_ventilation_pct` real,
	`max_ventilation_pct` real,
	`target_humidity_pct` real,
	`correlation_id` text NOT NULL,
	`adapter_dispatch` text NOT NULL,
	`version_id` integer NOT NULL,
	`state` text NOT NULL,
	`change_note` text,
	`rollback_of` integer,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL,
	`published_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `swine_setpoints_lineage` ON `swine_setpoints` (`tenant_id`,`site_id`,`room_id`,`version_id`);