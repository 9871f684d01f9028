ALTER TABLE `sync_sites` ADD `run_done_at` text;--> statement-breakpoint
ALTER TABLE `sync_tenants` ADD `sites_run_done` integer;