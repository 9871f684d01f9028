ALTER TABLE `alarms` ADD `annunciated` integer NOT NULL DEFAULT 0;--> statement-breakpoint
ALTER TABLE `alarms` ADD `urgent` integer NOT NULL DEFAULT 0;--> statement-breakpoint
-- Existing alarms, by src/industry/alarm-states.ts (annunciationOf): site alarms have no shelving.
UPDATE `alarms` SET `annunciated` = CASE WHEN `alarm_state` IN ('unacknowledged_active', 'unacknowledged_cleared') THEN 1 ELSE 0 END;--> statement-breakpoint
UPDATE `alarms` SET `urgent` = CASE WHEN `annunciated` = 1 AND `condition` = 'active' AND `severity` IN ('critical', 'high') THEN 1 ELSE 0 END;
