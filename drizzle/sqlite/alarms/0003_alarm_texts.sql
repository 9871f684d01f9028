ALTER TABLE `alarms` ADD `title_key` text;--> statement-breakpoint
ALTER TABLE `alarms` ADD `message_key` text;--> statement-breakpoint
ALTER TABLE `alarms` ADD `text_params` text;