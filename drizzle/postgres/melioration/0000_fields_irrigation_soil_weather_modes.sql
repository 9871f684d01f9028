CREATE TABLE "melioration_control_modes" (
	"field_id" text NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text NOT NULL,
	"control_mode" text NOT NULL,
	"fallback_mode" text NOT NULL,
	"auto_degraded" boolean NOT NULL,
	"station_healthy" boolean,
	"reason" text,
	"changed_at" text NOT NULL,
	"changed_by" text NOT NULL,
	CONSTRAINT "melioration_control_modes_field_id_pk" PRIMARY KEY("field_id")
);
--> statement-breakpoint
CREATE TABLE "melioration_fields" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text NOT NULL,
	"name" text NOT NULL,
	"crop" text NOT NULL,
	"area_ha" double precision,
	"field_capacity_pct" double precision,
	"wilting_point_pct" double precision,
	"available_water_mm_per_m" double precision,
	"root_depth_m" double precision NOT NULL,
	"depletion_fraction" double precision NOT NULL,
	"kc" double precision NOT NULL,
	"balance_start" text NOT NULL,
	"initial_depletion_mm" double precision NOT NULL,
	"depletion_mm" double precision,
	"surplus_mm" double precision,
	"balance_day" text,
	"weather_source" text,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "melioration_irrigation_events" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text NOT NULL,
	"field_id" text NOT NULL,
	"kind" text NOT NULL,
	"equipment_id" text NOT NULL,
	"started_at" text,
	"observed_at" text NOT NULL,
	"day" text NOT NULL,
	"depth_mm" double precision NOT NULL,
	"volume_m3" double precision,
	"covered_area_ha" double precision,
	"covered_fraction" double precision NOT NULL,
	"field_depth_mm" double precision NOT NULL,
	"entered_as" text NOT NULL,
	"note" text,
	"received_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "melioration_soil_moisture" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text NOT NULL,
	"field_id" text NOT NULL,
	"probe_id" text NOT NULL,
	"depth_cm" bigint NOT NULL,
	"vwc_pct" double precision NOT NULL,
	"observed_at" text NOT NULL,
	"day" text NOT NULL,
	"depletion_mm" double precision NOT NULL,
	"surplus_mm" double precision NOT NULL,
	"received_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "melioration_weather" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text NOT NULL,
	"kind" text NOT NULL,
	"source" text NOT NULL,
	"station_id" text,
	"day" text NOT NULL,
	"observed_at" text NOT NULL,
	"t_min_c" double precision,
	"t_max_c" double precision,
	"rh_min_pct" double precision,
	"rh_max_pct" double precision,
	"rh_mean_pct" double precision,
	"wind_2m_ms" double precision,
	"solar_mj_m2" double precision,
	"sunshine_h" double precision,
	"rain_mm" double precision,
	"latitude_deg" double precision,
	"elevation_m" double precision,
	"air_temp_c" double precision,
	"rh_pct" double precision,
	"wind_ms" double precision,
	"solar_w_m2" double precision,
	"et0_mm" double precision,
	"et0_method" text,
	"reported_healthy" boolean,
	"telemetry_healthy" boolean NOT NULL,
	"healthy" boolean NOT NULL,
	"health_reasons" jsonb NOT NULL,
	"fallback_mode" text,
	"fields" jsonb,
	"received_at" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "melioration_fields_tenant_site" ON "melioration_fields" USING btree ("tenant_id","site_id");--> statement-breakpoint
CREATE INDEX "melioration_irrigation_field_day" ON "melioration_irrigation_events" USING btree ("tenant_id","field_id","day");--> statement-breakpoint
CREATE INDEX "melioration_soil_field_day" ON "melioration_soil_moisture" USING btree ("tenant_id","field_id","day");--> statement-breakpoint
CREATE INDEX "melioration_weather_site_day" ON "melioration_weather" USING btree ("tenant_id","site_id","kind","day");--> statement-breakpoint
CREATE INDEX "melioration_weather_station" ON "melioration_weather" USING btree ("tenant_id","site_id","station_id","kind","observed_at");