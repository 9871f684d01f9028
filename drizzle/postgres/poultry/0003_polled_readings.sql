ALTER TABLE "poultry_adapter_profiles" ADD COLUMN "readings" jsonb;--> statement-breakpoint
ALTER TABLE "poultry_adapter_profiles" ADD COLUMN "poll_period_s" bigint;--> statement-breakpoint
ALTER TABLE "poultry_adapter_profiles" ADD COLUMN "loss_after_misses" bigint;--> statement-breakpoint
ALTER TABLE "poultry_adapter_profiles" ADD COLUMN "comm_loss_priority" text;--> statement-breakpoint
UPDATE poultry_climate_readings SET source = 'api' WHERE source IN ('telemetry', 'sensors');