CREATE TABLE "poultry_adapter_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text,
	"adapter_id" text NOT NULL,
	"unit_id" text NOT NULL,
	"controller_id" text NOT NULL,
	"profile" jsonb NOT NULL,
	"version_id" bigint NOT NULL,
	"state" text NOT NULL,
	"change_note" text,
	"rollback_of" bigint,
	"created_by" text NOT NULL,
	"created_at" text NOT NULL,
	"published_at" text
);
--> statement-breakpoint
CREATE UNIQUE INDEX "poultry_adapter_versions_lineage" ON "poultry_adapter_versions" USING btree ("tenant_id","adapter_id","version_id");