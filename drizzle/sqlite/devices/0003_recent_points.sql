-- The newest points, before the settle moves them into telemetry_points (src/modules/devices/recent.ts):
-- no index, appended in arrival order. The API's view reads both tables.
CREATE TABLE `telemetry_points_recent` (
	`id` integer PRIMARY KEY NOT NULL,
	`series_id` integer NOT NULL,
	`ts` integer NOT NULL,
	`value` real,
	`status` integer NOT NULL,
	`latency_ms` real,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
DROP VIEW `device_telemetry`;
--> statement-breakpoint
CREATE VIEW `device_telemetry` AS
SELECT p.`id` AS `id`, +s.`tenant_id` AS `tenant_id`, nullif(s.`site_id`, '') AS `site_id`, s.`device_id` AS `device_id`, s.`metric` AS `metric`,
	p.`value` AS `value`, nullif(s.`unit`, '') AS `unit`,
	CASE p.`status` WHEN 0 THEN 'online' WHEN 1 THEN 'warn' ELSE 'error' END AS `status`,
	p.`latency_ms` AS `latency_ms`, p.`ts` AS `ts`, p.`received_at` AS `received_at`
FROM `telemetry_points` p JOIN `telemetry_series` s ON s.`id` = p.`series_id`
UNION ALL
SELECT p.`id` AS `id`, +s.`tenant_id` AS `tenant_id`, nullif(s.`site_id`, '') AS `site_id`, s.`device_id` AS `device_id`, s.`metric` AS `metric`,
	p.`value` AS `value`, nullif(s.`unit`, '') AS `unit`,
	CASE p.`status` WHEN 0 THEN 'online' WHEN 1 THEN 'warn' ELSE 'error' END AS `status`,
	p.`latency_ms` AS `latency_ms`, p.`ts` AS `ts`, p.`received_at` AS `received_at`
FROM `telemetry_points_recent` p JOIN `telemetry_series` s ON s.`id` = p.`series_id`;
