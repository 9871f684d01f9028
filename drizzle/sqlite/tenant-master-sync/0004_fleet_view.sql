ALTER TABLE `sync_alarms` ADD `priority` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `app_version` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `module_versions` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `versions_reported_at` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `last_heartbeat_at` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `id` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `status` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `open_p1` integer;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `policy` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `policy_violations` text;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `holds_master_state` integer;--> statement-breakpoint
ALTER TABLE `sync_sites` ADD `attention` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `sync_sites_id_unique` ON `sync_sites` (`id`);--> statement-breakpoint
-- The fleet view addresses a site as site@tenant (an id may not hold @); rows registered before get theirs here.
UPDATE `sync_sites` SET `id` = `site_id` || '@' || `tenant_id`;