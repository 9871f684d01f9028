ALTER TABLE "alarms" ADD COLUMN "title_key" text;--> statement-breakpoint
ALTER TABLE "alarms" ADD COLUMN "message_key" text;--> statement-breakpoint
ALTER TABLE "alarms" ADD COLUMN "text_params" jsonb;