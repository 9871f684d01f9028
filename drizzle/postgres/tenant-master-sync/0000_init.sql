CREATE TABLE "sync_alarms" (
	"tenant_id" text NOT NULL,
	"alarm_id" text NOT NULL,
	"site_id" text NOT NULL,
	"severity" text NOT NULL,
	"state" text NOT NULL,
	"title" text NOT NULL,
	"correlation_id" text NOT NULL,
	"raised_at" text NOT NULL,
	"acknowledged_by" text,
	"updated_at" text NOT NULL,
	CONSTRAINT "sync_alarms_tenant_id_alarm_id_pk" PRIMARY KEY("tenant_id","alarm_id")
);
--> statement-breakpoint
CREATE TABLE "sync_heartbeats" (
	"tenant_id" text NOT NULL,
	"site_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"at" text NOT NULL,
	"interval_ms" bigint NOT NULL,
	"rtt_ms" double precision,
	CONSTRAINT "sync_heartbeats_tenant_id_site_id_seq_pk" PRIMARY KEY("tenant_id","site_id","seq")
);
--> statement-breakpoint
CREATE TABLE "sync_inbox" (
	"tenant_id" text NOT NULL,
	"site_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"kind" text NOT NULL,
	"created_at" text NOT NULL,
	"received_at" text NOT NULL,
	"payload" jsonb NOT NULL,
	CONSTRAINT "sync_inbox_tenant_id_site_id_seq_pk" PRIMARY KEY("tenant_id","site_id","seq")
);
--> statement-breakpoint
CREATE TABLE "sync_outbox" (
	"seq" bigint PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"created_at" text NOT NULL,
	"payload" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sync_sites" (
	"tenant_id" text NOT NULL,
	"site_id" text NOT NULL,
	"passkey_id" text NOT NULL,
	"industry_code" text,
	"registered_at" text NOT NULL,
	"last_seen_at" text,
	"applied_seq" bigint NOT NULL,
	"events_received" bigint NOT NULL,
	"reported_pending" bigint NOT NULL,
	"reported_oldest_at" text,
	"down_revision" text,
	"last_rtt_ms" double precision,
	CONSTRAINT "sync_sites_tenant_id_site_id_pk" PRIMARY KEY("tenant_id","site_id")
);
--> statement-breakpoint
CREATE TABLE "sync_state" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL
);
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
);
--> statement-breakpoint
CREATE TABLE "sync_tenants" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"mode" text NOT NULL,
	"lag_seconds" double precision NOT NULL,
	"pending_up" bigint NOT NULL,
	"pending_down" bigint NOT NULL,
	"pending" bigint NOT NULL,
	"sites" bigint NOT NULL,
	"sites_live" bigint NOT NULL,
	"events_received" bigint NOT NULL,
	"last_seen_at" text,
	"run_requested_at" text,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "sync_alarms_state" ON "sync_alarms" USING btree ("state");--> statement-breakpoint
CREATE INDEX "sync_heartbeats_at" ON "sync_heartbeats" USING btree ("at");--> statement-breakpoint
CREATE INDEX "sync_inbox_kind" ON "sync_inbox" USING btree ("kind","created_at");--> statement-breakpoint
CREATE INDEX "sync_telemetry_bucket" ON "sync_telemetry" USING btree ("bucket");