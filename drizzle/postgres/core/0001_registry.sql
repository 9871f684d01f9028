CREATE TABLE "module_installs" (
	"module_id" text PRIMARY KEY NOT NULL,
	"installed" boolean NOT NULL,
	"version" text NOT NULL,
	"industry_code" text,
	"source" text NOT NULL,
	"updated_at" text NOT NULL,
	"updated_by" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "permission_overrides" (
	"module_id" text PRIMARY KEY NOT NULL,
	"rules" jsonb NOT NULL,
	"industry_code" text,
	"updated_at" text NOT NULL,
	"updated_by" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "registry_imports" (
	"id" text PRIMARY KEY NOT NULL,
	"path" text NOT NULL,
	"sha256" text NOT NULL,
	"imported_at" text NOT NULL,
	"applied" jsonb NOT NULL,
	"skipped" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "site_policies" (
	"tenant_id" text NOT NULL,
	"site_id" text NOT NULL,
	"module_id" text NOT NULL,
	"enabled" boolean NOT NULL,
	"updated_at" text NOT NULL,
	"updated_by" text NOT NULL,
	CONSTRAINT "site_policies_tenant_id_site_id_module_id_pk" PRIMARY KEY("tenant_id","site_id","module_id")
);
