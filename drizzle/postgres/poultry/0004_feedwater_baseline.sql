ALTER TABLE "poultry_feedwater" ADD COLUMN "water_baseline_at" text;--> statement-breakpoint
ALTER TABLE "poultry_feedwater" ADD COLUMN "feed_baseline_at" text;