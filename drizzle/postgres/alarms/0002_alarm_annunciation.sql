ALTER TABLE "alarms" ADD COLUMN "annunciated" boolean NOT NULL DEFAULT false;--> statement-breakpoint
ALTER TABLE "alarms" ADD COLUMN "urgent" boolean NOT NULL DEFAULT false;--> statement-breakpoint
-- Existing alarms, by src/industry/alarm-states.ts (annunciationOf): site alarms have no shelving.
UPDATE "alarms" SET "annunciated" = ("alarm_state" IN ('unacknowledged_active', 'unacknowledged_cleared'));--> statement-breakpoint
UPDATE "alarms" SET "urgent" = ("annunciated" AND "condition" = 'active' AND "severity" IN ('critical', 'high'));
