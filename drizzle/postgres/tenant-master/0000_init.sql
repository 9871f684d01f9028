CREATE TABLE "tenant_master_events" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"event_type" text NOT NULL,
	"status" text NOT NULL,
	"correlation_id" text NOT NULL,
	"payload" jsonb,
	"created_by" text NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "tenant_master_events_tenant" ON "tenant_master_events" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "tenant_master_events_correlation" ON "tenant_master_events" USING btree ("correlation_id");