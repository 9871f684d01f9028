-- Rules made before on_ack existed keep their behaviour: acknowledgements are not notified.
ALTER TABLE `notification_rules` ADD `on_ack` integer NOT NULL DEFAULT 0;
