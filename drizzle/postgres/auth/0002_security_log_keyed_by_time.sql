-- The security log keyed by (at, id), as on SQLite: the key serves the newest-first list and the
-- purge, so the index on at goes. Hand-edited after drizzle-kit: the old key's name.
DROP INDEX "auth_security_log_at";--> statement-breakpoint
ALTER TABLE "auth_security_log" DROP CONSTRAINT "auth_security_log_pkey";--> statement-breakpoint
ALTER TABLE "auth_security_log" ADD CONSTRAINT "auth_security_log_at_id_pk" PRIMARY KEY("at","id");
