-- The security log's merged reads: an allowed read repeated within the minute is one entry
-- (src/auth/security-log.ts), with how many requests it stands for and the time of the last.
-- Adding a column with a constant default rewrites no row (SQLite: the schema only; PostgreSQL 11+:
-- the default is kept in the catalogue), so a box's 90 days of entries cost the start nothing.
ALTER TABLE `auth_security_log` ADD `count` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `auth_security_log` ADD `last_at` text;