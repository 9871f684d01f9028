CREATE TABLE "notification_channels" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"enabled" boolean NOT NULL,
	"smtp_host" text,
	"smtp_port" bigint,
	"smtp_tls" text,
	"smtp_user" text,
	"smtp_from" text,
	"webhook_url" text,
	"secret_enc" text,
	"has_secret" boolean NOT NULL,
	"site_name" text,
	"link_url" text,
	"retry_max_attempts" bigint NOT NULL,
	"retry_base_ms" bigint NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_cursors" (
	"tenant_id" text NOT NULL,
	"site_id" text NOT NULL,
	"seq" bigint NOT NULL,
	CONSTRAINT "notification_cursors_tenant_id_site_id_pk" PRIMARY KEY("tenant_id","site_id")
);
--> statement-breakpoint
CREATE TABLE "notification_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text,
	"rule_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"kind" text NOT NULL,
	"recipient" text NOT NULL,
	"alarm_id" text NOT NULL,
	"event" text NOT NULL,
	"escalation_level" bigint NOT NULL,
	"priority" text,
	"severity" text NOT NULL,
	"subject" text NOT NULL,
	"text" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text NOT NULL,
	"attempts" bigint NOT NULL,
	"next_attempt_at" text,
	"claimed_until" text,
	"last_error" text,
	"created_at" text NOT NULL,
	"sent_at" text,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_rules" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"site_id" text,
	"name" text NOT NULL,
	"channel_id" text NOT NULL,
	"recipients" jsonb NOT NULL,
	"priorities" jsonb NOT NULL,
	"severities" jsonb NOT NULL,
	"min_escalation_level" bigint NOT NULL,
	"max_escalation_level" bigint,
	"on_raise" boolean NOT NULL,
	"on_escalation" boolean NOT NULL,
	"on_clear" boolean NOT NULL,
	"enabled" boolean NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "notification_channels_tenant" ON "notification_channels" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "notification_deliveries_due" ON "notification_deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "notification_deliveries_tenant" ON "notification_deliveries" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "notification_rules_tenant" ON "notification_rules" USING btree ("tenant_id","enabled");