CREATE TABLE "industry_profiles" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text NOT NULL,
	"industry_code" text NOT NULL,
	"equipment_profile" text NOT NULL,
	"name" text NOT NULL,
	"content" jsonb NOT NULL,
	"content_sha256" text NOT NULL,
	"version_id" bigint NOT NULL,
	"state" text NOT NULL,
	"change_note" text,
	"rollback_of" bigint,
	"created_by" text NOT NULL,
	"created_at" text NOT NULL,
	"published_at" text
);
--> statement-breakpoint
CREATE UNIQUE INDEX "industry_profiles_lineage_version" ON "industry_profiles" USING btree ("tenant_id","site_id","industry_code","equipment_profile","name","version_id");--> statement-breakpoint
CREATE INDEX "industry_profiles_state" ON "industry_profiles" USING btree ("tenant_id","industry_code","state");