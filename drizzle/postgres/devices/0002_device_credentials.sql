CREATE TABLE "device_credentials" (
	"id" text PRIMARY KEY NOT NULL,
	"device_id" text NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text,
	"name" text,
	"status" text NOT NULL,
	"issued_at" text NOT NULL,
	"issued_by" text NOT NULL,
	"revoked_at" text,
	"last_used_at" text,
	"last_address" text,
	"credential_digest" text NOT NULL,
	CONSTRAINT "device_credentials_credential_digest_unique" UNIQUE("credential_digest")
);
--> statement-breakpoint
CREATE INDEX "device_credentials_tenant_status" ON "device_credentials" USING btree ("tenant_id","status");