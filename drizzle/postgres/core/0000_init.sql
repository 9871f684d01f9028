CREATE TABLE "idempotency_keys" (
	"key" text NOT NULL,
	"principal" text NOT NULL,
	"fingerprint" text NOT NULL,
	"status" bigint NOT NULL,
	"body" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "idempotency_keys_key_principal_pk" PRIMARY KEY("key","principal")
);
--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_at" ON "idempotency_keys" USING btree ("created_at");