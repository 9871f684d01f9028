CREATE TABLE "tables_items" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text,
	"data" jsonb NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "tables_items_tenant_created" ON "tables_items" USING btree ("tenant_id","created_at");