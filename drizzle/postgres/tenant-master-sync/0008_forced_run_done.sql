ALTER TABLE "sync_sites" ADD COLUMN "run_done_at" text;--> statement-breakpoint
ALTER TABLE "sync_tenants" ADD COLUMN "sites_run_done" bigint;