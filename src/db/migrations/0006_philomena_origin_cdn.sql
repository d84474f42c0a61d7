-- The origin that serves the files of images a Philomena import brought in without them
-- (`--origin-cdn`): their representations and view_url point there.
ALTER TABLE "philomena_import" ADD COLUMN "origin_cdn" text;
