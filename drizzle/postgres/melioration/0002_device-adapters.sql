CREATE TABLE "melioration_adapter_profiles" (
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
	"readings" jsonb,
	"poll_period_s" bigint,
	"loss_after_misses" bigint,
	"comm_loss_priority" text,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "melioration_soil_moisture" ADD COLUMN "reading_source" text;--> statement-breakpoint
ALTER TABLE "melioration_weather" ADD COLUMN "reading_source" text;--> statement-breakpoint
CREATE INDEX "melioration_adapter_profiles_unit" ON "melioration_adapter_profiles" USING btree ("tenant_id","unit_id");