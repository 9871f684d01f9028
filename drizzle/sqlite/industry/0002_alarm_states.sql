CREATE TABLE `industry_alarm_out_of_service` (
	`tenant_id` text NOT NULL,
	`industry_code` text NOT NULL,
	`unit_id` text NOT NULL,
	`site_id` text,
	`reason` text NOT NULL,
	`since` text NOT NULL,
	`by` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `industry_code`, `unit_id`)
);
--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `condition` text NOT NULL DEFAULT 'active';--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `alarm_state` text NOT NULL DEFAULT 'unacknowledged_active';--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `listed` integer NOT NULL DEFAULT 1;--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `latched` integer NOT NULL DEFAULT 0;--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `resettable` integer NOT NULL DEFAULT 1;--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `returned_at` text;--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `shelved` integer NOT NULL DEFAULT 0;--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `shelved_until` text;--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `shelved_by` text;--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `shelve_reason` text;--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `out_of_service` integer NOT NULL DEFAULT 0;--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `raise_count` integer NOT NULL DEFAULT 1;--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `last_raised_at` text NOT NULL DEFAULT '';--> statement-breakpoint
CREATE INDEX `industry_alarm_events_listed` ON `industry_alarm_events` (`tenant_id`,`listed`,`alarm_state`);--> statement-breakpoint
-- Existing events: the condition from the old status (clear used to overwrite it), the state from
-- the condition and acked_at (src/industry/alarm-states.ts), one raise each.
UPDATE `industry_alarm_events` SET `last_raised_at` = `raised_at`, `condition` = CASE WHEN `status` = 'cleared' THEN 'cleared' ELSE 'active' END;--> statement-breakpoint
UPDATE `industry_alarm_events` SET `alarm_state` = CASE
  WHEN `condition` = 'active' AND `acked_at` IS NULL THEN 'unacknowledged_active'
  WHEN `condition` = 'active' THEN 'acknowledged_active'
  WHEN `acked_at` IS NOT NULL OR (`priority` IS NULL AND `severity` IN ('low', 'info')) THEN 'normal'
  ELSE 'unacknowledged_cleared' END;--> statement-breakpoint
UPDATE `industry_alarm_events` SET `listed` = CASE WHEN `alarm_state` = 'normal' THEN 0 ELSE 1 END, `status` = CASE WHEN `condition` = 'cleared' THEN 'cleared' WHEN `acked_at` IS NOT NULL THEN 'acked' ELSE 'active' END;
