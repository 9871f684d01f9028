CREATE TABLE "passkeys" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"holder" text NOT NULL,
	"scope" text NOT NULL,
	"scope_type" text NOT NULL,
	"tenant_id" text,
	"site_id" text,
	"role" text NOT NULL,
	"status" text NOT NULL,
	"issued_at" text NOT NULL,
	"issued_by" text NOT NULL,
	"expires_at" text NOT NULL,
	"last_used_at" text,
	"revoked_at" text,
	"credential_digest" text NOT NULL,
	CONSTRAINT "passkeys_credential_digest_unique" UNIQUE("credential_digest")
);
--> statement-breakpoint
CREATE INDEX "passkeys_tenant_status" ON "passkeys" USING btree ("tenant_id","status");