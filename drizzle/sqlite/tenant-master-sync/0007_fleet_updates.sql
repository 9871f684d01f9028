ALTER TABLE `sync_sites` ADD `target_version` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `target_rollout_id` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `previous_version` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `update_version` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `update_step` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `update_progress` real;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `update_reason` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `update_reason_code` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `update_at` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `update_arch` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `update_hold` integer;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `update_hold_reason` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `update_hold_by` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `update_hold_at` text;