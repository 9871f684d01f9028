CREATE TABLE "alarms" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text,
	"site_id" text,
	"scope" text NOT NULL,
	"severity" text NOT NULL,
	"state" text NOT NULL,
	"source" text NOT NULL,
	"title" text NOT NULL,
	"message" text,
	"correlation_id" text NOT NULL,
	"details" jsonb,
	"raised_at" text NOT NULL,
	"acknowledged_by" text,
	"acknowledged_at" text,
	"comment" text
);
--> statement-breakpoint
CREATE INDEX "alarms_tenant_raised" ON "alarms" USING btree ("tenant_id","raised_at");--> statement-breakpoint
CREATE INDEX "alarms_state" ON "alarms" USING btree ("state");--> statement-breakpoint
CREATE INDEX "alarms_correlation" ON "alarms" USING btree ("correlation_id");