ALTER TABLE "industry_alarm_events" ADD COLUMN "annunciated" boolean NOT NULL DEFAULT false;--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "urgent" boolean NOT NULL DEFAULT false;--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "shelved_at" text;--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "reset_at" text;--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "reset_by" text;--> statement-breakpoint
CREATE INDEX "industry_alarm_events_annunciated" ON "industry_alarm_events" USING btree ("tenant_id","annunciated","urgent");--> statement-breakpoint
-- Existing events, by the rule of src/industry/alarm-states.ts (annunciationOf): unacknowledged and
-- not suppressed; urgent when also active, the process not back (latched returned), and P1 (or
-- critical/high without a priority).
UPDATE "industry_alarm_events" SET "annunciated" = ("alarm_state" IN ('unacknowledged_active', 'unacknowledged_cleared') AND NOT "shelved" AND NOT "out_of_service");--> statement-breakpoint
UPDATE "industry_alarm_events" SET "urgent" = ("annunciated" AND "condition" = 'active' AND "returned_at" IS NULL AND ("priority" = 'P1' OR ("priority" IS NULL AND "severity" IN ('critical', 'high'))));
