ALTER TABLE `alarms` ADD `condition` text NOT NULL DEFAULT 'active';--> statement-breakpoint
ALTER TABLE `alarms` ADD `cleared_at` text;--> statement-breakpoint
ALTER TABLE `alarms` ADD `alarm_state` text NOT NULL DEFAULT 'unacknowledged_active';--> statement-breakpoint
ALTER TABLE `alarms` ADD `listed` integer NOT NULL DEFAULT 1;--> statement-breakpoint
CREATE INDEX `alarms_listed` ON `alarms` (`tenant_id`,`listed`,`alarm_state`);--> statement-breakpoint
-- Existing alarms had no condition: they stay active; acknowledged ones are acknowledged_active.
UPDATE `alarms` SET `alarm_state` = 'acknowledged_active' WHERE `acknowledged_at` IS NOT NULL;
