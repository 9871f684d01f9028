CREATE TABLE `poultry_adapter_profiles` (
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
CREATE INDEX `poultry_adapter_profiles_unit` ON `poultry_adapter_profiles` (`tenant_id`,`unit_id`);--> statement-breakpoint
CREATE TABLE `poultry_climate_profiles` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text,
	`house_id` text NOT NULL,
	`batch_id` text NOT NULL,
	`age_phase_id` text NOT NULL,
	`subtype` text NOT NULL,
	`day_from` integer NOT NULL,
	`day_to` integer NOT NULL,
	`target_temp_c` real NOT NULL,
	`temp_tolerance_c` real NOT NULL,
	`humidity_min_pct` real NOT NULL,
	`humidity_max_pct` real NOT NULL,
	`co2_max_ppm` real NOT NULL,
	`nh3_max_ppm` real NOT NULL,
	`min_ventilation_pct` real NOT NULL,
	`version_id` integer NOT NULL,
	`state` text NOT NULL,
	`change_note` text,
	`rollback_of` integer,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL,
	`published_at` text,
	`correlation_id` text,
	`adapter_dispatch` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `poultry_climate_lineage` ON `poultry_climate_profiles` (`tenant_id`,`house_id`,`batch_id`,`age_phase_id`,`version_id`);--> statement-breakpoint
CREATE TABLE `poultry_climate_readings` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text,
	`house_id` text NOT NULL,
	`batch_id` text NOT NULL,
	`ts` text NOT NULL,
	`age_days` integer,
	`age_phase_id` text,
	`profile_id` text,
	`temp` real,
	`humidity` real,
	`co2` real,
	`nh3` real,
	`ventilation` real,
	`status` text NOT NULL,
	`out_of_norm_flags` text NOT NULL,
	`source` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `poultry_climate_readings_house_ts` ON `poultry_climate_readings` (`tenant_id`,`house_id`,`ts`);--> statement-breakpoint
CREATE TABLE `poultry_flocks` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text,
	`house_id` text NOT NULL,
	`batch_id` text NOT NULL,
	`subtype` text NOT NULL,
	`status` text NOT NULL,
	`start_date` text NOT NULL,
	`planned_close_date` text,
	`closed_date` text,
	`birds_placed` integer,
	`climate_source` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `poultry_flocks_house_batch` ON `poultry_flocks` (`tenant_id`,`house_id`,`batch_id`);--> statement-breakpoint
CREATE TABLE `poultry_rule_states` (
	`tenant_id` text NOT NULL,
	`industry_code` text NOT NULL,
	`unit_id` text NOT NULL,
	`rule_id` text NOT NULL,
	`site_id` text,
	`batch_id` text,
	`state` text NOT NULL,
	`breach_since` text,
	`last_value` real,
	`threshold_value` real,
	`rule` text NOT NULL,
	`correlation_id` text,
	`actor` text,
	`alarm_id` text,
	`hold_until` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `industry_code`, `unit_id`, `rule_id`)
);
--> statement-breakpoint
CREATE INDEX `poultry_rule_states_due` ON `poultry_rule_states` (`state`,`hold_until`);