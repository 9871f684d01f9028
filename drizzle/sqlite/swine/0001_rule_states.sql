CREATE TABLE `swine_rule_states` (
	`tenant_id` text NOT NULL,
	`industry_code` text NOT NULL,
	`unit_id` text NOT NULL,
	`rule_id` text NOT NULL,
	`site_id` text,
	`batch_id` text,
	`state` text NOT NULL,
	`breach_since` text,
	`last_value` real,
	`threshold_value` real,
	`rule` text NOT NULL,
	`correlation_id` text,
	`actor` text,
	`alarm_id` text,
	`hold_until` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `industry_code`, `unit_id`, `rule_id`)
);
--> statement-breakpoint
CREATE INDEX `swine_rule_states_due` ON `swine_rule_states` (`state`,`hold_until`);