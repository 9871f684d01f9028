CREATE TABLE "sync_rollups" (
	"tenant_id" text NOT NULL,
	"site_id" text NOT NULL,
	"grain" text NOT NULL,
	"bucket" text NOT NULL,
	"heartbeats" bigint NOT NULL,
	"covered_ms" bigint NOT NULL,
	"rtt_sum" double precision NOT NULL,
	"rtt_count" bigint NOT NULL,
	"first_beat_at" text,
	"telemetry_points" bigint NOT NULL,
	"telemetry_rows" bigint NOT NULL,
	CONSTRAINT "sync_rollups_tenant_id_site_id_grain_bucket_pk" PRIMARY KEY("tenant_id","site_id","grain","bucket")
);
--> statement-breakpoint
-- The figures a window adds up ride in the index (INCLUDE): reading a range needs no table page that autovacuum has marked all-visible.
CREATE INDEX "sync_rollups_grain_bucket" ON "sync_rollups" USING btree ("grain","bucket") INCLUDE ("tenant_id","site_id","heartbeats","covered_ms","rtt_sum","rtt_count","first_beat_at","telemetry_points","telemetry_rows");--> statement-breakpoint
CREATE INDEX "sync_alarms_raised" ON "sync_alarms" USING btree ("raised_at") INCLUDE ("tenant_id","site_id","state","severity");--> statement-breakpoint
-- Roll-ups of what the master already holds (timestamps in the sync's ISO form); pushes keep them current from here on.
INSERT INTO "sync_rollups" ("tenant_id", "site_id", "grain", "bucket", "heartbeats", "covered_ms", "rtt_sum", "rtt_count", "first_beat_at", "telemetry_points", "telemetry_rows")
SELECT "tenant_id", "site_id", 'minute', substr(t, 1, 16) || ':00.000Z', sum(hb), sum(cov), sum(rs), sum(rc), min(fb), sum(tp), sum(tr) FROM (
  SELECT "tenant_id", "site_id", "at" AS t, 1 AS hb, "interval_ms" AS cov, coalesce("rtt_ms", 0) AS rs, CASE WHEN "rtt_ms" IS NULL THEN 0 ELSE 1 END AS rc, "at" AS fb, 0 AS tp, 0 AS tr FROM "sync_heartbeats"
  UNION ALL SELECT "tenant_id", "site_id", "bucket", 0, 0, 0, 0, NULL, "points", 1 FROM "sync_telemetry"
) e WHERE t LIKE '____-__-__T__:__:__.___Z' AND t >= to_char((now() AT TIME ZONE 'UTC') - interval '8 days', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') GROUP BY "tenant_id", "site_id", substr(t, 1, 16) || ':00.000Z';
--> statement-breakpoint
INSERT INTO "sync_rollups" ("tenant_id", "site_id", "grain", "bucket", "heartbeats", "covered_ms", "rtt_sum", "rtt_count", "first_beat_at", "telemetry_points", "telemetry_rows")
SELECT "tenant_id", "site_id", 'hour', substr(t, 1, 13) || ':00:00.000Z', sum(hb), sum(cov), sum(rs), sum(rc), min(fb), sum(tp), sum(tr) FROM (
  SELECT "tenant_id", "site_id", "at" AS t, 1 AS hb, "interval_ms" AS cov, coalesce("rtt_ms", 0) AS rs, CASE WHEN "rtt_ms" IS NULL THEN 0 ELSE 1 END AS rc, "at" AS fb, 0 AS tp, 0 AS tr FROM "sync_heartbeats"
  UNION ALL SELECT "tenant_id", "site_id", "bucket", 0, 0, 0, 0, NULL, "points", 1 FROM "sync_telemetry"
) e WHERE t LIKE '____-__-__T__:__:__.___Z' AND t >= to_char((now() AT TIME ZONE 'UTC') - interval '8 days', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') GROUP BY "tenant_id", "site_id", substr(t, 1, 13) || ':00:00.000Z';
--> statement-breakpoint
INSERT INTO "sync_rollups" ("tenant_id", "site_id", "grain", "bucket", "heartbeats", "covered_ms", "rtt_sum", "rtt_count", "first_beat_at", "telemetry_points", "telemetry_rows")
SELECT "tenant_id", "site_id", 'day', substr(t, 1, 10) || 'T00:00:00.000Z', sum(hb), sum(cov), sum(rs), sum(rc), min(fb), sum(tp), sum(tr) FROM (
  SELECT "tenant_id", "site_id", "at" AS t, 1 AS hb, "interval_ms" AS cov, coalesce("rtt_ms", 0) AS rs, CASE WHEN "rtt_ms" IS NULL THEN 0 ELSE 1 END AS rc, "at" AS fb, 0 AS tp, 0 AS tr FROM "sync_heartbeats"
  UNION ALL SELECT "tenant_id", "site_id", "bucket", 0, 0, 0, 0, NULL, "points", 1 FROM "sync_telemetry"
) e WHERE t LIKE '____-__-__T__:__:__.___Z' GROUP BY "tenant_id", "site_id", substr(t, 1, 10) || 'T00:00:00.000Z';
