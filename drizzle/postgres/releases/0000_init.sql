CREATE TABLE "release_chunks" (
	"release_id" text NOT NULL,
	"arch" text NOT NULL,
	"idx" bigint NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	"stored_at" text NOT NULL,
	CONSTRAINT "release_chunks_release_id_arch_idx_pk" PRIMARY KEY("release_id","arch","idx")
);
--> statement-breakpoint
CREATE TABLE "release_packages" (
	"release_id" text NOT NULL,
	"arch" text NOT NULL,
	"size" bigint,
	"sha256" text,
	"signed" text,
	"key_id" text,
	"chunk_size" bigint NOT NULL,
	"chunks" bigint,
	"complete" boolean NOT NULL,
	"updated_at" text NOT NULL,
	CONSTRAINT "release_packages_release_id_arch_pk" PRIMARY KEY("release_id","arch")
);
--> statement-breakpoint
CREATE TABLE "release_rollout_sites" (
	"rollout_id" text NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text NOT NULL,
	"wave" bigint NOT NULL,
	"assigned_at" text NOT NULL,
	CONSTRAINT "release_rollout_sites_rollout_id_tenant_id_site_id_pk" PRIMARY KEY("rollout_id","tenant_id","site_id")
);
--> statement-breakpoint
CREATE TABLE "release_rollouts" (
	"id" text PRIMARY KEY NOT NULL,
	"release_id" text NOT NULL,
	"canary_site_ids" jsonb NOT NULL,
	"waves" jsonb NOT NULL,
	"failure_threshold_percent" double precision NOT NULL,
	"proof_timeout_s" bigint NOT NULL,
	"state" text NOT NULL,
	"wave" bigint NOT NULL,
	"paused_reason" text,
	"accepted_failures" jsonb NOT NULL,
	"created_by" text NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL,
	"finished_at" text,
	"progress" jsonb
);
--> statement-breakpoint
CREATE TABLE "releases" (
	"id" text PRIMARY KEY NOT NULL,
	"version" text NOT NULL,
	"notes" text NOT NULL,
	"state" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" text NOT NULL,
	"published_at" text,
	"published_by" text,
	"withdrawn_at" text,
	"withdrawn_reason" text,
	"updated_at" text NOT NULL,
	"packages" jsonb NOT NULL,
	CONSTRAINT "releases_version_unique" UNIQUE("version")
);
--> statement-breakpoint
CREATE INDEX "release_rollout_sites_site" ON "release_rollout_sites" USING btree ("tenant_id","site_id");--> statement-breakpoint
CREATE INDEX "release_rollouts_state" ON "release_rollouts" USING btree ("state");