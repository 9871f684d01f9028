-- Channels made before this have no recipients of their own, and rules no units (every unit).
ALTER TABLE "notification_channels" ADD COLUMN "recipients" jsonb NOT NULL DEFAULT '[]'::jsonb;--> statement-breakpoint
ALTER TABLE "notification_rules" ADD COLUMN "unit_ids" jsonb NOT NULL DEFAULT '[]'::jsonb;
