CREATE TABLE "analytics_metrics" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"industry_code" text,
	"metric" text NOT NULL,
	"window" text NOT NULL,
	"value" double precision,
	"unit" text NOT NULL,
	"samples" bigint NOT NULL,
	"computed_at" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "analytics_metrics_tenant" ON "analytics_metrics" USING btree ("tenant_id","metric");