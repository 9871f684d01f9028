-- Time-series layout (issue 16): series dictionary, integer epoch-ms points, minute/hour roll-ups.
-- Existing rows move over (a box upgraded in the field keeps its data); the API reads the views.
-- In device_telemetry, tenant_id is `+s.tenant_id` on purpose: the unary plus keeps SQLite's
-- planner (no statistics) from driving a tenant's newest-first page from the series and sorting
-- every point of the tenant; it scans the ts index backwards instead. A device filter still
-- starts from the series key (device_id leads it).
CREATE TABLE `telemetry_series` (
	`id` integer PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text NOT NULL,
	`device_id` text NOT NULL,
	`metric` text NOT NULL,
	`unit` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `telemetry_series_key` ON `telemetry_series` (`device_id`,`metric`,`tenant_id`,`site_id`,`unit`);--> statement-breakpoint
CREATE TABLE `telemetry_points` (
	`id` integer PRIMARY KEY NOT NULL,
	`series_id` integer NOT NULL,
	`ts` integer NOT NULL,
	`value` real,
	`status` integer NOT NULL,
	`latency_ms` real,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `telemetry_points_series_ts` ON `telemetry_points` (`series_id`,`ts`);--> statement-breakpoint
CREATE INDEX `telemetry_points_ts` ON `telemetry_points` (`ts`);--> statement-breakpoint
CREATE TABLE `telemetry_rollups` (
	`series_id` integer NOT NULL,
	`resolution` integer NOT NULL,
	`bucket` integer NOT NULL,
	`count` integer NOT NULL,
	`value_count` integer NOT NULL,
	`sum` real NOT NULL,
	`min` real,
	`max` real,
	`last` real,
	`last_ts` integer NOT NULL,
	PRIMARY KEY(`series_id`, `resolution`, `bucket`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `telemetry_series` (`tenant_id`, `site_id`, `device_id`, `metric`, `unit`)
SELECT DISTINCT `tenant_id`, coalesce(`site_id`, ''), `device_id`, `metric`, coalesce(`unit`, '') FROM `device_telemetry`;
--> statement-breakpoint
INSERT INTO `telemetry_points` (`series_id`, `ts`, `value`, `status`, `latency_ms`, `received_at`)
SELECT s.`id`,
	CAST(round((julianday(d.`ts`) - 2440587.5) * 86400000.0) AS INTEGER),
	d.`value`,
	CASE d.`status` WHEN 'online' THEN 0 WHEN 'warn' THEN 1 ELSE 2 END,
	d.`latency_ms`,
	CAST(round((julianday(d.`received_at`) - 2440587.5) * 86400000.0) AS INTEGER)
FROM `device_telemetry` d
JOIN `telemetry_series` s ON s.`tenant_id` = d.`tenant_id` AND s.`device_id` = d.`device_id` AND s.`metric` = d.`metric`
	AND s.`site_id` = coalesce(d.`site_id`, '') AND s.`unit` = coalesce(d.`unit`, '')
ORDER BY d.`ts`, d.`id`;
--> statement-breakpoint
INSERT INTO `telemetry_rollups` (`series_id`, `resolution`, `bucket`, `count`, `value_count`, `sum`, `min`, `max`, `last`, `last_ts`)
SELECT g.`series_id`, g.`resolution`, g.`bucket`, g.`count`, g.`value_count`, g.`sum`, g.`min`, g.`max`,
	(SELECT q.`value` FROM `telemetry_points` q WHERE q.`series_id` = g.`series_id` AND q.`ts` = g.`last_ts` ORDER BY q.`id` DESC LIMIT 1),
	g.`last_ts`
FROM (
	SELECT `series_id`, 60 AS `resolution`, (`ts` / 60000) * 60000 AS `bucket`, count(*) AS `count`, count(`value`) AS `value_count`,
		coalesce(sum(`value`), 0) AS `sum`, min(`value`) AS `min`, max(`value`) AS `max`, max(`ts`) AS `last_ts`
	FROM `telemetry_points` GROUP BY `series_id`, `ts` / 60000
	UNION ALL
	SELECT `series_id`, 3600, (`ts` / 3600000) * 3600000, count(*), count(`value`), coalesce(sum(`value`), 0), min(`value`), max(`value`), max(`ts`)
	FROM `telemetry_points` GROUP BY `series_id`, `ts` / 3600000
) g;
--> statement-breakpoint
DROP TABLE `device_telemetry`;
--> statement-breakpoint
CREATE VIEW `device_telemetry` AS
SELECT p.`id` AS `id`, +s.`tenant_id` AS `tenant_id`, nullif(s.`site_id`, '') AS `site_id`, s.`device_id` AS `device_id`, s.`metric` AS `metric`,
	p.`value` AS `value`, nullif(s.`unit`, '') AS `unit`,
	CASE p.`status` WHEN 0 THEN 'online' WHEN 1 THEN 'warn' ELSE 'error' END AS `status`,
	p.`latency_ms` AS `latency_ms`, p.`ts` AS `ts`, p.`received_at` AS `received_at`
FROM `telemetry_points` p JOIN `telemetry_series` s ON s.`id` = p.`series_id`;
--> statement-breakpoint
CREATE VIEW `device_telemetry_rollups` AS
SELECT r.`series_id` AS `series_id`, s.`tenant_id` AS `tenant_id`, nullif(s.`site_id`, '') AS `site_id`, s.`device_id` AS `device_id`, s.`metric` AS `metric`,
	nullif(s.`unit`, '') AS `unit`, r.`resolution` AS `resolution`, r.`bucket` AS `bucket`, r.`count` AS `count`, r.`value_count` AS `value_count`,
	r.`sum` AS `sum`, r.`min` AS `min`, r.`max` AS `max`, r.`last` AS `last`, r.`last_ts` AS `last_ts`
FROM `telemetry_rollups` r JOIN `telemetry_series` s ON s.`id` = r.`series_id`;
