ALTER TABLE `poultry_feedwater` ADD `water_baseline_at` text;--> statement-breakpoint
ALTER TABLE `poultry_feedwater` ADD `feed_baseline_at` text;