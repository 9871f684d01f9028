ALTER TABLE `industry_alarm_events` ADD `title_key` text;--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `message_key` text;--> statement-breakpoint
ALTER TABLE `industry_alarm_events` ADD `text_params` text;