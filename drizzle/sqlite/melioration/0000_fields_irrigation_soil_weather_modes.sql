CREATE TABLE `melioration_control_modes` (
	`field_id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text NOT NULL,
	`control_mode` text NOT NULL,
	`fallback_mode` text NOT NULL,
	`auto_degraded` integer NOT NULL,
	`station_healthy` integer,
	`reason` text,
	`changed_at` text NOT NULL,
	`changed_by` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `melioration_fields` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text NOT NULL,
	`name` text NOT NULL,
	`crop` text NOT NULL,
	`area_ha` real,
	`field_capacity_pct` real,
	`wilting_point_pct` real,
	`available_water_mm_per_m` real,
	`root_depth_m` real NOT NULL,
	`depletion_fraction` real NOT NULL,
	`kc` real NOT NULL,
	`balance_start` text NOT NULL,
	`initial_depletion_mm` real NOT NULL,
	`depletion_mm` real,
	`surplus_mm` real,
	`balance_day` text,
	`weather_source` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `melioration_fields_tenant_site` ON `melioration_fields` (`tenant_id`,`site_id`);--> statement-breakpoint
CREATE TABLE `melioration_irrigation_events` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text NOT NULL,
	`field_id` text NOT NULL,
	`kind` text NOT NULL,
	`equipment_id` text NOT NULL,
	`started_at` text,
	`observed_at` text NOT NULL,
	`day` text NOT NULL,
	`depth_mm` real NOT NULL,
	`volume_m3` real,
	`covered_area_ha` real,
	`covered_fraction` real NOT NULL,
	`field_depth_mm` real NOT NULL,
	`entered_as` text NOT NULL,
	`note` text,
	`received_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `melioration_irrigation_field_day` ON `melioration_irrigation_events` (`tenant_id`,`field_id`,`day`);--> statement-breakpoint
CREATE TABLE `melioration_soil_moisture` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text NOT NULL,
	`field_id` text NOT NULL,
	`probe_id` text NOT NULL,
	`depth_cm` integer NOT NULL,
	`vwc_pct` real NOT NULL,
	`observed_at` text NOT NULL,
	`day` text NOT NULL,
	`depletion_mm` real NOT NULL,
	`surplus_mm` real NOT NULL,
	`received_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `melioration_soil_field_day` ON `melioration_soil_moisture` (`tenant_id`,`field_id`,`day`);--> statement-breakpoint
CREATE TABLE `melioration_weather` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text NOT NULL,
	`kind` text NOT NULL,
	`source` text NOT NULL,
	`station_id` text,
	`day` text NOT NULL,
	`observed_at` text NOT NULL,
	`t_min_c` real,
	`t_max_c` real,
	`rh_min_pct` real,
	`rh_max_pct` real,
	`rh_mean_pct` real,
	`wind_2m_ms` real,
	`solar_mj_m2` real,
	`sunshine_h` real,
	`rain_mm` real,
	`latitude_deg` real,
	`elevation_m` real,
	`air_temp_c` real,
	`rh_pct` real,
	`wind_ms` real,
	`solar_w_m2` real,
	`et0_mm` real,
	`et0_method` text,
	`reported_healthy` integer,
	`telemetry_healthy` integer NOT NULL,
	`healthy` integer NOT NULL,
	`health_reasons` text NOT NULL,
	`fallback_mode` text,
	`fields` text,
	`received_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `melioration_weather_site_day` ON `melioration_weather` (`tenant_id`,`site_id`,`kind`,`day`);--> statement-breakpoint
CREATE INDEX `melioration_weather_station` ON `melioration_weather` (`tenant_id`,`site_id`,`station_id`,`kind`,`observed_at`);