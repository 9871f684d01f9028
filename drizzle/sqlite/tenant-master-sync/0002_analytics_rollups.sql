CREATE TABLE `sync_rollups` (
	`tenant_id` text NOT NULL,
	`site_id` text NOT NULL,
	`grain` text NOT NULL,
	`bucket` text NOT NULL,
	`heartbeats` integer NOT NULL,
	`covered_ms` integer NOT NULL,
	`rtt_sum` real NOT NULL,
	`rtt_count` integer NOT NULL,
	`first_beat_at` text,
	`telemetry_points` integer NOT NULL,
	`telemetry_rows` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `site_id`, `grain`, `bucket`)
);
--> statement-breakpoint
CREATE INDEX `sync_rollups_grain_bucket` ON `sync_rollups` (`grain`,`bucket`);--> statement-breakpoint
CREATE INDEX `sync_alarms_raised` ON `sync_alarms` (`raised_at`);--> statement-breakpoint
-- Roll-ups of what the master already holds (timestamps in the sync's ISO form); pushes keep them current from here on.
INSERT INTO "sync_rollups" ("tenant_id", "site_id", "grain", "bucket", "heartbeats", "covered_ms", "rtt_sum", "rtt_count", "first_beat_at", "telemetry_points", "telemetry_rows")
SELECT "tenant_id", "site_id", 'minute', substr(t, 1, 16) || ':00.000Z', sum(hb), sum(cov), sum(rs), sum(rc), min(fb), sum(tp), sum(tr) FROM (
  SELECT "tenant_id", "site_id", "at" AS t, 1 AS hb, "interval_ms" AS cov, coalesce("rtt_ms", 0) AS rs, CASE WHEN "rtt_ms" IS NULL THEN 0 ELSE 1 END AS rc, "at" AS fb, 0 AS tp, 0 AS tr FROM "sync_heartbeats"
  UNION ALL SELECT "tenant_id", "site_id", "bucket", 0, 0, 0, 0, NULL, "points", 1 FROM "sync_telemetry"
) e WHERE t LIKE '____-__-__T__:__:__.___Z' AND t >= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-8 days') GROUP BY "tenant_id", "site_id", substr(t, 1, 16) || ':00.000Z';
--> statement-breakpoint
INSERT INTO "sync_rollups" ("tenant_id", "site_id", "grain", "bucket", "heartbeats", "covered_ms", "rtt_sum", "rtt_count", "first_beat_at", "telemetry_points", "telemetry_rows")
SELECT "tenant_id", "site_id", 'hour', substr(t, 1, 13) || ':00:00.000Z', sum(hb), sum(cov), sum(rs), sum(rc), min(fb), sum(tp), sum(tr) FROM (
  SELECT "tenant_id", "site_id", "at" AS t, 1 AS hb, "interval_ms" AS cov, coalesce("rtt_ms", 0) AS rs, CASE WHEN "rtt_ms" IS NULL THEN 0 ELSE 1 END AS rc, "at" AS fb, 0 AS tp, 0 AS tr FROM "sync_heartbeats"
  UNION ALL SELECT "tenant_id", "site_id", "bucket", 0, 0, 0, 0, NULL, "points", 1 FROM "sync_telemetry"
) e WHERE t LIKE '____-__-__T__:__:__.___Z' AND t >= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-8 days') GROUP BY "tenant_id", "site_id", substr(t, 1, 13) || ':00:00.000Z';
--> statement-breakpoint
INSERT INTO "sync_rollups" ("tenant_id", "site_id", "grain", "bucket", "heartbeats", "covered_ms", "rtt_sum", "rtt_count", "first_beat_at", "telemetry_points", "telemetry_rows")
SELECT "tenant_id", "site_id", 'day', substr(t, 1, 10) || 'T00:00:00.000Z', sum(hb), sum(cov), sum(rs), sum(rc), min(fb), sum(tp), sum(tr) FROM (
  SELECT "tenant_id", "site_id", "at" AS t, 1 AS hb, "interval_ms" AS cov, coalesce("rtt_ms", 0) AS rs, CASE WHEN "rtt_ms" IS NULL THEN 0 ELSE 1 END AS rc, "at" AS fb, 0 AS tp, 0 AS tr FROM "sync_heartbeats"
  UNION ALL SELECT "tenant_id", "site_id", "bucket", 0, 0, 0, 0, NULL, "points", 1 FROM "sync_telemetry"
) e WHERE t LIKE '____-__-__T__:__:__.___Z' GROUP BY "tenant_id", "site_id", substr(t, 1, 10) || 'T00:00:00.000Z';
