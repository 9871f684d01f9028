-- Rules made before on_ack existed keep their behaviour: acknowledgements are not notified.
ALTER TABLE "notification_rules" ADD COLUMN "on_ack" boolean NOT NULL DEFAULT false;
