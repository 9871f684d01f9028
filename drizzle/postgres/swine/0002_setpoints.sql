CREATE TABLE "swine_adapter_profiles" (
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
CREATE TABLE "swine_setpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text NOT NULL,
	"room_id" text NOT NULL,
	"target_temp_c" double precision,
	"heating_start_c" double precision,
	"min_ventilation_pct" double precision,
	"max_ventilation_pct" double precision,
	"target_humidity_pct" double precision,
	"correlation_id" text NOT NULL,
	"adapter_dispatch" jsonb NOT NULL,
	"version_id" bigint NOT NULL,
	"state" text NOT NULL,
	"change_note" text,
	"rollback_of" bigint,
	"created_by" text NOT NULL,
	"created_at" text NOT NULL,
	"published_at" text
);
--> statement-breakpoint
CREATE INDEX "swine_adapter_profiles_unit" ON "swine_adapter_profiles" USING btree ("tenant_id","unit_id");--> statement-breakpoint
CREATE UNIQUE INDEX "swine_setpoints_lineage" ON "swine_setpoints" USING btree ("tenant_id","site_id","room_id","version_id");