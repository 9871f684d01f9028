CREATE TABLE `task_history` (
	`id` text PRIMARY KEY NOT NULL,
	`task_id` text NOT NULL,
	`tenant_id` text,
	`from_state` text NOT NULL,
	`to_state` text NOT NULL,
	`changed_by` text NOT NULL,
	`changed_at` text NOT NULL,
	`comment` text
);
--> statement-breakpoint
CREATE INDEX `task_history_task` ON `task_history` (`task_id`,`changed_at`);--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`site_id` text,
	`title` text NOT NULL,
	`description` text,
	`priority` text NOT NULL,
	`status` text NOT NULL,
	`scope` text NOT NULL,
	`assignee` text,
	`sla_minutes` integer,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `tasks_tenant_created` ON `tasks` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `tasks_status` ON `tasks` (`status`);