-- The newest climate readings, before the settle moves them into poultry_climate_readings
-- (src/modules/poultry/recent-readings.ts): no key and no index, appended. The reads read the view.
CREATE TABLE `poultry_climate_readings_recent` (
	`id` text NOT NULL,
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
CREATE VIEW `poultry_climate_readings_all` AS
SELECT `id`, `tenant_id`, `site_id`, `house_id`, `batch_id`, `ts`, `age_days`, `age_phase_id`, `profile_id`, `temp`, `humidity`, `co2`, `nh3`, `ventilation`, `status`, `out_of_norm_flags`, `source` FROM `poultry_climate_readings`
UNION ALL
SELECT `id`, `tenant_id`, `site_id`, `house_id`, `batch_id`, `ts`, `age_days`, `age_phase_id`, `profile_id`, `temp`, `humidity`, `co2`, `nh3`, `ventilation`, `status`, `out_of_norm_flags`, `source` FROM `poultry_climate_readings_recent`;
