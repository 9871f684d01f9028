CREATE TABLE "swine_biosecurity_events" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text,
	"kind" text NOT NULL,
	"person" text,
	"company" text,
	"vehicle_id" text,
	"room_id" text,
	"downtime_hours" double precision,
	"required_downtime_hours" double precision NOT NULL,
	"shower_in" boolean,
	"occurred_at" text NOT NULL,
	"notes" text,
	"status" text NOT NULL,
	"flags" jsonb NOT NULL,
	"alarm_id" text,
	"correlation_id" text NOT NULL,
	"acked" boolean NOT NULL,
	"acked_by" text,
	"acked_at" text,
	"ack_comment" text,
	"recorded_by" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "swine_climate_readings" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text,
	"room_id" text NOT NULL,
	"pen_id" text,
	"batch_id" text,
	"category" text,
	"phase_id" text NOT NULL,
	"avg_weight_kg" double precision,
	"age_days" bigint,
	"temp_c" double precision,
	"humidity_pct" double precision,
	"nh3_ppm" double precision,
	"co2_ppm" double precision,
	"ventilation_pct" double precision,
	"targets" jsonb NOT NULL,
	"targets_source" text NOT NULL,
	"status" text NOT NULL,
	"out_of_norm_flags" jsonb NOT NULL,
	"alarm_ids" jsonb NOT NULL,
	"source" text NOT NULL,
	"ts" text NOT NULL,
	"received_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "swine_feeding_records" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text,
	"room_id" text NOT NULL,
	"pen_id" text,
	"valve_id" text,
	"batch_id" text,
	"category" text NOT NULL,
	"sow_phase" text,
	"head_count" bigint NOT NULL,
	"avg_weight_kg" double precision,
	"feed_kg" double precision NOT NULL,
	"period_hours" double precision NOT NULL,
	"feed_per_head_kg_day" double precision NOT NULL,
	"expected_kg_day" double precision NOT NULL,
	"deviation_pct" double precision NOT NULL,
	"status" text NOT NULL,
	"anomaly_flags" jsonb NOT NULL,
	"alarm_ids" jsonb NOT NULL,
	"ts" text NOT NULL,
	"received_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "swine_production_records" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text NOT NULL,
	"batch_id" text NOT NULL,
	"room_id" text NOT NULL,
	"pen_id" text NOT NULL,
	"category" text NOT NULL,
	"metric_date" text NOT NULL,
	"head_count" bigint NOT NULL,
	"deaths" bigint NOT NULL,
	"culls" bigint NOT NULL,
	"avg_weight_kg" double precision,
	"feed_kg" double precision,
	"sows_present" bigint,
	"litters_weaned" bigint,
	"piglets_weaned" bigint,
	"piglets_born_alive" bigint,
	"out_of_norm_flags" jsonb NOT NULL,
	"created_by" text NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "swine_water_records" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text,
	"room_id" text NOT NULL,
	"pen_id" text,
	"batch_id" text,
	"category" text NOT NULL,
	"sow_phase" text,
	"head_count" bigint NOT NULL,
	"avg_weight_kg" double precision,
	"water_l" double precision NOT NULL,
	"period_hours" double precision NOT NULL,
	"per_head_l_day" double precision NOT NULL,
	"baseline_l_day" double precision NOT NULL,
	"baseline_source" text NOT NULL,
	"deviation_pct" double precision NOT NULL,
	"status" text NOT NULL,
	"anomaly_flags" jsonb NOT NULL,
	"alarm_ids" jsonb NOT NULL,
	"ts" text NOT NULL,
	"received_at" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "swine_biosecurity_site_time" ON "swine_biosecurity_events" USING btree ("tenant_id","site_id","occurred_at");--> statement-breakpoint
CREATE INDEX "swine_climate_room_ts" ON "swine_climate_readings" USING btree ("tenant_id","room_id","ts");--> statement-breakpoint
CREATE INDEX "swine_feeding_pen_ts" ON "swine_feeding_records" USING btree ("tenant_id","room_id","pen_id","ts");--> statement-breakpoint
CREATE UNIQUE INDEX "swine_production_day" ON "swine_production_records" USING btree ("tenant_id","site_id","batch_id","room_id","pen_id","category","metric_date");--> statement-breakpoint
CREATE INDEX "swine_water_pen_ts" ON "swine_water_records" USING btree ("tenant_id","room_id","pen_id","ts");