ALTER TABLE "sync_sites" ADD COLUMN "target_version" text;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "target_rollout_id" text;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "previous_version" text;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "update_version" text;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "update_step" text;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "update_progress" double precision;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "update_reason" text;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "update_reason_code" text;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "update_at" text;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "update_arch" text;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "update_hold" boolean;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "update_hold_reason" text;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "update_hold_by" text;--> statement-breakpoint
ALTER TABLE "sync_sites" ADD COLUMN "update_hold_at" text;