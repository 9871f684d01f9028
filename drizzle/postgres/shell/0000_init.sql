CREATE TABLE "shell_profile_audit" (
	"id" text PRIMARY KEY NOT NULL,
	"profile_key" text NOT NULL,
	"tenant_id" text,
	"action" text NOT NULL,
	"actor" text NOT NULL,
	"version" bigint,
	"details" jsonb,
	"at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shell_profile_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"profile_key" text NOT NULL,
	"tenant_id" text,
	"site_id" text,
	"industry_code" text,
	"version" bigint NOT NULL,
	"theme" text,
	"dashboard_layout" jsonb,
	"quick_module_ids" jsonb,
	"ui_access" jsonb,
	"rollback_of" bigint,
	"source" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ui_preferences" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text,
	"subject" text NOT NULL,
	"site_id" text,
	"industry_code" text,
	"theme" text,
	"dashboard_layout" jsonb,
	"quick_module_ids" jsonb,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "shell_profile_audit_key" ON "shell_profile_audit" USING btree ("profile_key","at");--> statement-breakpoint
CREATE UNIQUE INDEX "shell_profile_versions_key_version" ON "shell_profile_versions" USING btree ("profile_key","version");--> statement-breakpoint
CREATE INDEX "shell_profile_versions_tenant" ON "shell_profile_versions" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "ui_preferences_tenant_subject" ON "ui_preferences" USING btree ("tenant_id","subject");