-- The security log keyed by (at, id), WITHOUT ROWID: the row is stored in its key's b-tree, so the
-- newest-first list and the purge need no index on at, and the text id no index of its own; the
-- tenant index is PostgreSQL's only (flash wear: one b-tree written per entry instead of four).
-- Hand-edited after drizzle-kit: WITHOUT ROWID, and no copy here: the old table is kept as
-- auth_security_log_0001 and the server copies its entries over in small transactions after the
-- start (src/auth/security-log.ts), then drops it. A box's log holds up to 90 days of entries
-- (15 M at two requests a second): one INSERT ... SELECT took minutes, past the unit's start
-- timeout (TimeoutStartSec), and a start killed mid-migration rolls it back and starts it again.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_auth_security_log` (
	`id` text NOT NULL,
	`at` text NOT NULL,
	`category` text NOT NULL,
	`result` text NOT NULL,
	`event` text NOT NULL,
	`method` text NOT NULL,
	`path` text NOT NULL,
	`tenant_id` text,
	`subject` text,
	`role` text,
	`client_address` text,
	`reason` text,
	`request_id` text,
	`route_context` text NOT NULL,
	PRIMARY KEY(`at`, `id`)
) WITHOUT ROWID;
--> statement-breakpoint
ALTER TABLE `auth_security_log` RENAME TO `auth_security_log_0001`;--> statement-breakpoint
ALTER TABLE `__new_auth_security_log` RENAME TO `auth_security_log`;--> statement-breakpoint
PRAGMA foreign_keys=ON;
