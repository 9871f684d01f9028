ALTER TABLE "alarms" ADD COLUMN "condition" text NOT NULL DEFAULT 'active';--> statement-breakpoint
ALTER TABLE "alarms" ADD COLUMN "cleared_at" text;--> statement-breakpoint
ALTER TABLE "alarms" ADD COLUMN "alarm_state" text NOT NULL DEFAULT 'unacknowledged_active';--> statement-breakpoint
ALTER TABLE "alarms" ADD COLUMN "listed" boolean NOT NULL DEFAULT true;--> statement-breakpoint
CREATE INDEX "alarms_listed" ON "alarms" USING btree ("tenant_id","listed","alarm_state");--> statement-breakpoint
-- Existing alarms had no condition: they stay active; acknowledged ones are acknowledged_active.
UPDATE "alarms" SET "alarm_state" = 'acknowledged_active' WHERE "acknowledged_at" IS NOT NULL;
