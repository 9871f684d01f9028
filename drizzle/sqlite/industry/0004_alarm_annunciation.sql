ALTER TABLE `industry_alarm_events` ADD `annunciated` integer NOT NULL DEFAULT 0;--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `urgent` integer NOT NULL DEFAULT 0;--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `shelved_at` text;--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `reset_at` text;--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `reset_by` text;--> statement-breakpoint
CREATE INDEX `industry_alarm_events_annunciated` ON `industry_alarm_events` (`tenant_id`,`annunciated`,`urgent`);--> statement-breakpoint
-- Existing events, by the rule of src/industry/alarm-states.ts (annunciationOf): unacknowledged and
-- not suppressed; urgent when also active, the process not back (latched returned), and P1 (or
-- critical/high without a priority).
UPDATE `industry_alarm_events` SET `annunciated` = CASE
  WHEN `alarm_state` IN ('unacknowledged_active', 'unacknowledged_cleared') AND `shelved` = 0 AND `out_of_service` = 0 THEN 1 ELSE 0 END;--> statement-breakpoint
UPDATE `industry_alarm_events` SET `urgent` = CASE
  WHEN `annunciated` = 1 AND `condition` = 'active' AND `returned_at` IS NULL AND (`priority` = 'P1' OR (`priority` IS NULL AND `severity` IN ('critical', 'high'))) THEN 1 ELSE 0 END;
