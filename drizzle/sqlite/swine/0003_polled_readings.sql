ALTER TABLE `swine_adapter_profiles` ADD `readings` text;--> statement-breakpoint
ALTER TABLE `swine_adapter_profiles` ADD `poll_period_s` integer;--> statement-breakpoint
ALTER TABLE `swine_adapter_profiles` ADD `loss_after_misses` integer;--> statement-breakpoint
ALTER TABLE `swine_adapter_profiles` ADD `comm_loss_priority` text;--> statement-breakpoint
UPDATE swine_climate_readings SET source = 'api' WHERE source IN ('telemetry', 'sensors');