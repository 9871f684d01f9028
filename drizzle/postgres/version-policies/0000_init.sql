CREATE TABLE "version_policies" (
	"id" text PRIMARY KEY NOT NULL,
	"scope" text NOT NULL,
	"industry_code" text,
	"tenant_id" text,
	"module_id" text,
	"allowed_major" bigint,
	"min_version" text,
	"max_version" text,
	"pinned_version" text,
	"origin" text NOT NULL,
	"updated_by" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "version_policies_scope" ON "version_policies" USING btree ("scope");