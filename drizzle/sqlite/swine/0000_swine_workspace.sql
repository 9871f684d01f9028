CREATE TABLE `swine_biosecurity_events` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text,
	`kind` text NOT NULL,
	`person` text,
	`company` text,
	`vehicle_id` text,
	`room_id` text,
	`downtime_hours` real,
	`required_downtime_hours` real NOT NULL,
	`shower_in` integer,
	`occurred_at` text NOT NULL,
	`notes` text,
	`status` text NOT NULL,
	`flags` text NOT NULL,
	`alarm_id` text,
	`correlation_id` text NOT NULL,
	`acked` integer NOT NULL,
	`acked_by` text,
	`acked_at` text,
	`ack_comment` text,
	`recorded_by` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `swine_biosecurity_site_time` ON `swine_biosecurity_events` (`tenant_id`,`site_id`,`occurred_at`);--> statement-breakpoint
CREATE TABLE `swine_climate_readings` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text,
	`room_id` text NOT NULL,
	`pen_id` text,
	`batch_id` text,
	`category` text,
	`phase_id` text NOT NULL,
	`avg_weight_kg` real,
	`age_days` integer,
	`temp_c` real,
	`humidity_pct` real,
	`nh3_ppm` real,
	`co2_ppm` real,
	`ventilation_pct` real,
	`targets` text NOT NULL,
	`targets_source` text NOT NULL,
	`status` text NOT NULL,
	`out_of_norm_flags` text NOT NULL,
	`alarm_ids` text NOT NULL,
	`source` text NOT NULL,
	`ts` text NOT NULL,
	`received_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `swine_climate_room_ts` ON `swine_climate_readings` (`tenant_id`,`room_id`,`ts`);--> statement-breakpoint
CREATE TABLE `swine_feeding_records` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text,
	`room_id` text NOT NULL,
	`pen_id` text,
	`valve_id` text,
	`batch_id` text,
	`category` text NOT NULL,
	`sow_phase` text,
	`head_count` integer NOT NULL,
	`avg_weight_kg` real,
	`feed_kg` real NOT NULL,
	`period_hours` real NOT NULL,
	`feed_per_head_kg_day` real NOT NULL,
	`expected_kg_day` real NOT NULL,
	`deviation_pct` real NOT NULL,
	`status` text NOT NULL,
	`anomaly_flags` text NOT NULL,
	`alarm_ids` text NOT NULL,
	`ts` text NOT NULL,
	`received_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `swine_feeding_pen_ts` ON `swine_feeding_records` (`tenant_id`,`room_id`,`pen_id`,`ts`);--> statement-breakpoint
CREATE TABLE `swine_production_records` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text NOT NULL,
	`batch_id` text NOT NULL,
	`room_id` text NOT NULL,
	`pen_id` text NOT NULL,
	`category` text NOT NULL,
	`metric_date` text NOT NULL,
	`head_count` integer NOT NULL,
	`deaths` integer NOT NULL,
	`culls` integer NOT NULL,
	`avg_weight_kg` real,
	`feed_kg` real,
	`sows_present` integer,
	`litters_weaned` integer,
	`piglets_weaned` integer,
	`piglets_born_alive` integer,
	`out_of_norm_flags` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `swine_production_day` ON `swine_production_records` (`tenant_id`,`site_id`,`batch_id`,`room_id`,`pen_id`,`category`,`metric_date`);--> statement-breakpoint
CREATE TABLE `swine_water_records` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`site_id` text,
	`room_id` text NOT NULL,
	`pen_id` text,
	`batch_id` text,
	`category` text NOT NULL,
	`sow_phase` text,
	`head_count` integer NOT NULL,
	`avg_weight_kg` real,
	`water_l` real NOT NULL,
	`period_hours` real NOT NULL,
	`per_head_l_day` real NOT NULL,
	`baseline_l_day` real NOT NULL,
	`baseline_source` text NOT NULL,
	`deviation_pct` real NOT NULL,
	`status` text NOT NULL,
	`anomaly_flags` text NOT NULL,
	`alarm_ids` text NOT NULL,
	`ts` text NOT NULL,
	`received_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `swine_water_pen_ts` ON `swine_water_records` (`tenant_id`,`room_id`,`pen_id`,`ts`);