-- The master's growing sync tables become partitioned by month of their time column (PostgreSQL
-- declarative partitioning; SQLite keeps plain tables). Each table is renamed, a partitioned table
-- with the same columns, key and indexes takes its name, a partition is made for every month its
-- rows span (at most ten years back) and the next two, rows outside them go to the default
-- partition, the rows are copied over and the old table is dropped, all in this migration's
-- transaction. cabinet_month_partition is also what the master's maintenance job calls
-- (src/modules/tenant-master-sync/engine/partitions.ts).
CREATE OR REPLACE FUNCTION cabinet_month_partition(parent text, key text, month date) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	lo text := to_char(month, 'YYYY-MM') || '-01T00:00:00.000Z';
	hi text := to_char(month + interval '1 month', 'YYYY-MM') || '-01T00:00:00.000Z';
	part text := parent || '_p' || to_char(month, 'YYYYMM');
BEGIN
	IF to_regclass(part) IS NOT NULL THEN RETURN false; END IF;
	EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', part, parent);
	-- Rows of that month that arrived before its partition existed wait in the default partition.
	EXECUTE format('WITH moved AS (DELETE FROM %I WHERE %I >= %L AND %I < %L RETURNING *) INSERT INTO %I SELECT * FROM moved', parent || '_default', key, lo, key, hi, part);
	EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, part, lo, hi);
	RETURN true;
END $$;
--> statement-breakpoint
ALTER TABLE "sync_inbox" RENAME TO "sync_inbox_unpartitioned";
--> statement-breakpoint
ALTER TABLE "sync_inbox_unpartitioned" RENAME CONSTRAINT "sync_inbox_tenant_id_site_id_seq_pk" TO "sync_inbox_unpartitioned_pk";
--> statement-breakpoint
ALTER INDEX "sync_inbox_kind" RENAME TO "sync_inbox_unpartitioned_sync_inbox_kind";
--> statement-breakpoint
CREATE TABLE "sync_inbox" (
	"tenant_id" text NOT NULL,
	"site_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"kind" text NOT NULL,
	"created_at" text NOT NULL,
	"received_at" text NOT NULL,
	"payload" jsonb NOT NULL,
	CONSTRAINT "sync_inbox_tenant_id_site_id_seq_received_at_pk" PRIMARY KEY("tenant_id","site_id","seq","received_at")
) PARTITION BY RANGE ("received_at");
--> statement-breakpoint
CREATE INDEX "sync_inbox_kind" ON "sync_inbox" USING btree ("kind","created_at");
--> statement-breakpoint
CREATE TABLE "sync_inbox_default" PARTITION OF "sync_inbox" DEFAULT;
--> statement-breakpoint
SELECT cabinet_month_partition('sync_inbox', 'received_at', m::date) FROM generate_series(
	date_trunc('month', greatest(now() - interval '10 years', least(now(), coalesce((SELECT min("received_at") FROM "sync_inbox_unpartitioned" WHERE "received_at" LIKE '____-__-__T__:__:__.___Z')::timestamptz, now())))),
	date_trunc('month', now() + interval '2 months'), interval '1 month') m;
--> statement-breakpoint
INSERT INTO "sync_inbox" SELECT * FROM "sync_inbox_unpartitioned";
--> statement-breakpoint
DROP TABLE "sync_inbox_unpartitioned";
--> statement-breakpoint
ALTER TABLE "sync_heartbeats" RENAME TO "sync_heartbeats_unpartitioned";
--> statement-breakpoint
ALTER TABLE "sync_heartbeats_unpartitioned" RENAME CONSTRAINT "sync_heartbeats_tenant_id_site_id_seq_pk" TO "sync_heartbeats_unpartitioned_pk";
--> statement-breakpoint
ALTER INDEX "sync_heartbeats_at" RENAME TO "sync_heartbeats_unpartitioned_sync_heartbeats_at";
--> statement-breakpoint
CREATE TABLE "sync_heartbeats" (
	"tenant_id" text NOT NULL,
	"site_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"at" text NOT NULL,
	"interval_ms" bigint NOT NULL,
	"rtt_ms" double precision,
	CONSTRAINT "sync_heartbeats_tenant_id_site_id_seq_at_pk" PRIMARY KEY("tenant_id","site_id","seq","at")
) PARTITION BY RANGE ("at");
--> statement-breakpoint
CREATE INDEX "sync_heartbeats_at" ON "sync_heartbeats" USING btree ("at");
--> statement-breakpoint
CREATE TABLE "sync_heartbeats_default" PARTITION OF "sync_heartbeats" DEFAULT;
--> statement-breakpoint
SELECT cabinet_month_partition('sync_heartbeats', 'at', m::date) FROM generate_series(
	date_trunc('month', greatest(now() - interval '10 years', least(now(), coalesce((SELECT min("at") FROM "sync_heartbeats_unpartitioned" WHERE "at" LIKE '____-__-__T__:__:__.___Z')::timestamptz, now())))),
	date_trunc('month', now() + interval '2 months'), interval '1 month') m;
--> statement-breakpoint
INSERT INTO "sync_heartbeats" SELECT * FROM "sync_heartbeats_unpartitioned";
--> statement-breakpoint
DROP TABLE "sync_heartbeats_unpartitioned";
--> statement-breakpoint
ALTER TABLE "sync_telemetry" RENAME TO "sync_telemetry_unpartitioned";
--> statement-breakpoint
ALTER TABLE "sync_telemetry_unpartitioned" RENAME CONSTRAINT "sync_telemetry_tenant_id_site_id_device_id_metric_bucket_pk" TO "sync_telemetry_unpartitioned_pk";
--> statement-breakpoint
ALTER INDEX "sync_telemetry_bucket" RENAME TO "sync_telemetry_unpartitioned_sync_telemetry_bucket";
--> statement-breakpoint
CREATE TABLE "sync_telemetry" (
	"tenant_id" text NOT NULL,
	"site_id" text NOT NULL,
	"device_id" text NOT NULL,
	"metric" text NOT NULL,
	"bucket" text NOT NULL,
	"points" bigint NOT NULL,
	"sum" double precision NOT NULL,
	"min" double precision,
	"max" double precision,
	"last_status" text NOT NULL,
	CONSTRAINT "sync_telemetry_tenant_id_site_id_device_id_metric_bucket_pk" PRIMARY KEY("tenant_id","site_id","device_id","metric","bucket")
) PARTITION BY RANGE ("bucket");
--> statement-breakpoint
CREATE INDEX "sync_telemetry_bucket" ON "sync_telemetry" USING btree ("bucket");
--> statement-breakpoint
CREATE TABLE "sync_telemetry_default" PARTITION OF "sync_telemetry" DEFAULT;
--> statement-breakpoint
SELECT cabinet_month_partition('sync_telemetry', 'bucket', m::date) FROM generate_series(
	date_trunc('month', greatest(now() - interval '10 years', least(now(), coalesce((SELECT min("bucket") FROM "sync_telemetry_unpartitioned" WHERE "bucket" LIKE '____-__-__T__:__:__.___Z')::timestamptz, now())))),
	date_trunc('month', now() + interval '2 months'), interval '1 month') m;
--> statement-breakpoint
INSERT INTO "sync_telemetry" SELECT * FROM "sync_telemetry_unpartitioned";
--> statement-breakpoint
DROP TABLE "sync_telemetry_unpartitioned";
