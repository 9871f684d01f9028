CREATE TABLE "industry_alarm_out_of_service" (
	"tenant_id" text NOT NULL,
	"industry_code" text NOT NULL,
	"unit_id" text NOT NULL,
	"site_id" text,
	"reason" text NOT NULL,
	"since" text NOT NULL,
	"by" text NOT NULL,
	CONSTRAINT "industry_alarm_out_of_service_tenant_id_industry_code_unit_id_pk" PRIMARY KEY("tenant_id","industry_code","unit_id")
);
--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "condition" text NOT NULL DEFAULT 'active';--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "alarm_state" text NOT NULL DEFAULT 'unacknowledged_active';--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "listed" boolean NOT NULL DEFAULT true;--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "latched" boolean NOT NULL DEFAULT false;--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "resettable" boolean NOT NULL DEFAULT true;--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "returned_at" text;--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "shelved" boolean NOT NULL DEFAULT false;--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "shelved_until" text;--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "shelved_by" text;--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "shelve_reason" text;--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "out_of_service" boolean NOT NULL DEFAULT false;--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "raise_count" bigint NOT NULL DEFAULT 1;--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "last_raised_at" text NOT NULL DEFAULT '';--> statement-breakpoint
CREATE INDEX "industry_alarm_events_listed" ON "industry_alarm_events" USING btree ("tenant_id","listed","alarm_state");--> statement-breakpoint
-- Existing events: the condition from the old status (clear used to overwrite it), the state from
-- the condition and acked_at (src/industry/alarm-states.ts), one raise each.
UPDATE "industry_alarm_events" SET "last_raised_at" = "raised_at", "condition" = CASE WHEN "status" = 'cleared' THEN 'cleared' ELSE 'active' END;--> statement-breakpoint
UPDATE "industry_alarm_events" SET "alarm_state" = CASE
  WHEN "condition" = 'active' AND "acked_at" IS NULL THEN 'unacknowledged_active'
  WHEN "condition" = 'active' THEN 'acknowledged_active'
  WHEN "acked_at" IS NOT NULL OR ("priority" IS NULL AND "severity" IN ('low', 'info')) THEN 'normal'
  ELSE 'unacknowledged_cleared' END;--> statement-breakpoint
UPDATE "industry_alarm_events" SET "listed" = CASE WHEN "alarm_state" = 'normal' THEN false ELSE true END, "status" = CASE WHEN "condition" = 'cleared' THEN 'cleared' WHEN "acked_at" IS NOT NULL THEN 'acked' ELSE 'active' END;
