-- Channels made before this have no recipients of their own, and rules no units (every unit).
ALTER TABLE `notification_channels` ADD `recipients` text NOT NULL DEFAULT '[]';--> statement-breakpoint
ALTER TABLE `notification_rules` ADD `unit_ids` text NOT NULL DEFAULT '[]';
