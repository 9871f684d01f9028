CREATE TABLE "device_telemetry" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text,
	"device_id" text NOT NULL,
	"metric" text NOT NULL,
	"value" double precision,
	"unit" text,
	"status" text NOT NULL,
	"latency_ms" double precision,
	"ts" text NOT NULL,
	"received_at" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "device_telemetry_device_ts" ON "device_telemetry" USING btree ("tenant_id","device_id","ts");--> statement-breakpoint
CREATE INDEX "device_telemetry_tenant_ts" ON "device_telemetry" USING btree ("tenant_id","ts");--> statement-breakpoint
CREATE INDEX "device_telemetry_ts" ON "device_telemetry" USING btree ("ts");