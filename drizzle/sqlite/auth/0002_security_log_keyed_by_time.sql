-- The security log keyed by (at, id), WITHOUT ROWID: the row is stored in its key's b-tree, so the
-- newest-first list and the purge need no index on at, and the text id no index of its own; the
-- tenant index is PostgreSQL's only (flash wear: one b-tree written per entry instead of four).
-- Hand-edited after drizzle-kit: WITHOUT ROWID and the copy in key order.
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
INSERT INTO `__new_auth_security_log`("id", "at", "category", "result", "event", "method", "path", "tenant_id", "subject", "role", "client_address", "reason", "request_id", "route_context") SELECT "id", "at", "category", "result", "event", "method", "path", "tenant_id", "subject", "role", "client_address", "reason", "request_id", "route_context" FROM `auth_security_log` ORDER BY "at", "id";--> statement-breakpoint
DROP TABLE `auth_security_log`;--> statement-breakpoint
ALTER TABLE `__new_auth_security_log` RENAME TO `auth_security_log`;--> statement-breakpoint
PRAGMA foreign_keys=ON;
