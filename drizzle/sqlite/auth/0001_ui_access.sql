CREATE TABLE `auth_ui_access` (
	`id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`rules` text NOT NULL,
	`updated_at` text NOT NULL,
	`updated_by` text NOT NULL,
	PRIMARY KEY(`id`, `tenant_id`)
);
