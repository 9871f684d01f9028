CREATE TABLE "poultry_adapter_profiles" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text,
	"unit_id" text NOT NULL,
	"controller_id" text NOT NULL,
	"transport" text NOT NULL,
	"host" text,
	"port" bigint,
	"serial_path" text,
	"modbus_unit_id" bigint,
	"device_instance" bigint,
	"points" jsonb NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "poultry_climate_profiles" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text,
	"house_id" text NOT NULL,
	"batch_id" text NOT NULL,
	"age_phase_id" text NOT NULL,
	"subtype" text NOT NULL,
	"day_from" bigint NOT NULL,
	"day_to" bigint NOT NULL,
	"target_temp_c" double precision NOT NULL,
	"temp_tolerance_c" double precision NOT NULL,
	"humidity_min_pct" double precision NOT NULL,
	"humidity_max_pct" double precision NOT NULL,
	"co2_max_ppm" double precision NOT NULL,
	"nh3_max_ppm" double precision NOT NULL,
	"min_ventilation_pct" double precision NOT NULL,
	"version_id" bigint NOT NULL,
	"state" text NOT NULL,
	"change_note" text,
	"rollback_of" bigint,
	"created_by" text NOT NULL,
	"created_at" text NOT NULL,
	"published_at" text,
	"correlation_id" text,
	"adapter_dispatch" jsonb
);
--> statement-breakpoint
CREATE TABLE "poultry_climate_readings" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text,
	"house_id" text NOT NULL,
	"batch_id" text NOT NULL,
	"ts" text NOT NULL,
	"age_days" bigint,
	"age_phase_id" text,
	"profile_id" text,
	"temp" double precision,
	"humidity" double precision,
	"co2" double precision,
	"nh3" double precision,
	"ventilation" double precision,
	"status" text NOT NULL,
	"out_of_norm_flags" jsonb NOT NULL,
	"source" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "poultry_flocks" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text,
	"house_id" text NOT NULL,
	"batch_id" text NOT NULL,
	"subtype" text NOT NULL,
	"status" text NOT NULL,
	"start_date" text NOT NULL,
	"planned_close_date" text,
	"closed_date" text,
	"birds_placed" bigint,
	"climate_source" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "poultry_rule_states" (
	"tenant_id" text NOT NULL,
	"industry_code" text NOT NULL,
	"unit_id" text NOT NULL,
	"rule_id" text NOT NULL,
	"site_id" text,
	"batch_id" text,
	"state" text NOT NULL,
	"breach_since" text,
	"last_value" double precision,
	"threshold_value" double precision,
	"rule" jsonb NOT NULL,
	"correlation_id" text,
	"actor" text,
	"alarm_id" text,
	"hold_until" text,
	"updated_at" text NOT NULL,
	CONSTRAINT "poultry_rule_states_tenant_id_industry_code_unit_id_rule_id_pk" PRIMARY KEY("tenant_id","industry_code","unit_id","rule_id")
);
--> statement-breakpoint
CREATE INDEX "poultry_adapter_profiles_unit" ON "poultry_adapter_profiles" USING btree ("tenant_id","unit_id");--> statement-breakpoint
CREATE UNIQUE INDEX "poultry_climate_lineage" ON "poultry_climate_profiles" USING btree ("tenant_id","house_id","batch_id","age_phase_id","version_id");--> statement-breakpoint
CREATE INDEX "poultry_climate_readings_house_ts" ON "poultry_climate_readings" USING btree ("tenant_id","house_id","ts");--> statement-breakpoint
CREATE UNIQUE INDEX "poultry_flocks_house_batch" ON "poultry_flocks" USING btree ("tenant_id","house_id","batch_id");--> statement-breakpoint
CREATE INDEX "poultry_rule_states_due" ON "poultry_rule_states" USING btree ("state","hold_until");