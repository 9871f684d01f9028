ALTER TABLE "industry_alarm_events" ADD COLUMN "title_key" text;--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "message_key" text;--> statement-breakpoint
ALTER TABLE "industry_alarm_events" ADD COLUMN "text_params" jsonb;