CREATE TABLE "auth_challenges" (
	"id" text PRIMARY KEY NOT NULL,
	"method" text NOT NULL,
	"status" text NOT NULL,
	"nonce_hash" text,
	"code_hash" text,
	"bound_passkey_id" text,
	"bound_subject" text,
	"bound_role" text,
	"bound_scope_type" text,
	"bound_tenant_id" text,
	"bound_site_id" text,
	"attempts" bigint NOT NULL,
	"client_address" text,
	"created_at" text NOT NULL,
	"expires_at" text NOT NULL,
	"completed_at" text,
	"passkey_id" text
);
--> statement-breakpoint
CREATE TABLE "auth_revoked_sessions" (
	"sid" text PRIMARY KEY NOT NULL,
	"subject" text NOT NULL,
	"revoked_at" text NOT NULL,
	"expires_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "auth_security_log" (
	"id" text PRIMARY KEY NOT NULL,
	"at" text NOT NULL,
	"category" text NOT NULL,
	"result" text NOT NULL,
	"event" text NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"tenant_id" text,
	"subject" text,
	"role" text,
	"client_address" text,
	"reason" text,
	"request_id" text,
	"route_context" jsonb NOT NULL
);
--> statement-breakpoint
CREATE INDEX "auth_challenges_status_expires" ON "auth_challenges" USING btree ("status","expires_at");--> statement-breakpoint
CREATE INDEX "auth_revoked_sessions_expires" ON "auth_revoked_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "auth_security_log_at" ON "auth_security_log" USING btree ("at");--> statement-breakpoint
CREATE INDEX "auth_security_log_tenant_at" ON "auth_security_log" USING btree ("tenant_id","at");