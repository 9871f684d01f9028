ALTER TABLE `sync_alarms` ADD `id` text;--> statement-breakpoint
ALTER TABLE `sync_alarms` ADD `open` integer;--> statement-breakpoint
ALTER TABLE `sync_alarms` ADD `p1` integer;--> statement-breakpoint
ALTER TABLE `sync_alarms` ADD `sort_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `sync_alarms_id_unique` ON `sync_alarms` (`id`);--> statement-breakpoint
CREATE INDEX `sync_alarms_order` ON `sync_alarms` (`sort_key`);--> statement-breakpoint
CREATE INDEX `sync_alarms_open` ON `sync_alarms` (`open`,`p1`,`sort_key`);--> statement-breakpoint
-- sync-alarms reads alarm@tenant, open, p1 and the default order's key from these columns (engine/alarms.ts keeps them); alarms synced before get theirs here.
UPDATE `sync_alarms` SET `id` = `alarm_id` || '@' || `tenant_id`, `open` = (`state` IN ('open', 'active')), `p1` = (coalesce(`priority`, '') = 'P1' OR (`priority` IS NULL AND `severity` = 'critical'));--> statement-breakpoint
UPDATE `sync_alarms` SET `sort_key` = (CASE WHEN `open` THEN '1' ELSE '0' END) || (CASE WHEN `p1` THEN '1' ELSE '0' END) || `raised_at`;
