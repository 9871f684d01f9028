CREATE TABLE `melioration_balance_days` (
	`tenant_id` text NOT NULL,
	`field_id` text NOT NULL,
	`day` text NOT NULL,
	`depletion_end_mm` real NOT NULL,
	PRIMARY KEY(`tenant_id`, `field_id`, `day`)
);
