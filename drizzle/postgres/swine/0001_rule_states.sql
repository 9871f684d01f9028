CREATE TABLE "swine_rule_states" (
	"tenant_id" text NOT NULL,
	"industry_code" text NOT NULL,
	"unit_id" text NOT NULL,
	"rule_id" text NOT NULL,
	"site_id" text,
	"batch_id" text,
	"state" text NOT NULL,
	"breach_since" text,
	"last_value" double precision,
	"threshold_value" double precision,
	"rule" jsonb NOT NULL,
	"correlation_id" text,
	"actor" text,
	"alarm_id" text,
	"hold_until" text,
	"updated_at" text NOT NULL,
	CONSTRAINT "swine_rule_states_tenant_id_industry_code_unit_id_rule_id_pk" PRIMARY KEY("tenant_id","industry_code","unit_id","rule_id")
);
--> statement-breakpoint
CREATE INDEX "swine_rule_states_due" ON "swine_rule_states" USING btree ("state","hold_until");