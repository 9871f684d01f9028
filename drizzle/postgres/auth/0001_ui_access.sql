CREATE TABLE "auth_ui_access" (
	"id" text NOT NULL,
	"tenant_id" text NOT NULL,
	"rules" jsonb NOT NULL,
	"updated_at" text NOT NULL,
	"updated_by" text NOT NULL,
	CONSTRAINT "auth_ui_access_id_tenant_id_pk" PRIMARY KEY("id","tenant_id")
);
