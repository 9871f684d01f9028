ALTER TABLE "sync_alarms" ADD COLUMN "priority" text;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "app_version" text;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "module_versions" jsonb;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "versions_reported_at" text;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "last_heartbeat_at" text;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "id" text;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "status" text;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "open_p1" bigint;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "policy" text;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "policy_violations" jsonb;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "holds_master_state" boolean;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "attention" bigint;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD CONSTRAINT "sync_sites_id_unique" UNIQUE("id");--> statement-breakpoint
-- The fleet view addresses a site as site@tenant (an id may not hold @); rows registered before get theirs here.
UPDATE "sync_sites" SET "id" = "site_id" || '@' || "tenant_id";