-- Channels made before this have no language of their own: they write in the site's default (site_language).
ALTER TABLE "notification_channels" ADD COLUMN "language" text;
