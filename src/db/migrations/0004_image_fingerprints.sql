-- Perceptual fingerprints of images for reverse search (src/media/fingerprint.ts): two 64-bit
-- hashes as 16 lowercase hex digits, and the version of the algorithm that computed them, so a
-- changed algorithm can be backfilled again. A row's change reindexes its image.
CREATE TABLE "image_fingerprints" (
	"image_id" integer PRIMARY KEY NOT NULL REFERENCES "images"("id") ON DELETE CASCADE,
	"phash" text NOT NULL CHECK ("phash" ~ '^[0-9a-f]{16}$'),
	"chash" text NOT NULL CHECK ("chash" ~ '^[0-9a-f]{16}$'),
	"version" smallint NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER image_fingerprints_outbox AFTER INSERT OR UPDATE OR DELETE ON image_fingerprints
  FOR EACH ROW EXECUTE FUNCTION tagwise_outbox_row('images', 'image_id');
--> statement-breakpoint
-- Near-duplicates found when an image is submitted: the image, the closest existing image and
-- their Hamming distance. `open` until merged or dismissed.
CREATE TABLE "duplicate_reports" (
	"id" serial PRIMARY KEY NOT NULL,
	"image_id" integer NOT NULL REFERENCES "images"("id") ON DELETE CASCADE,
	"duplicate_of_image_id" integer NOT NULL REFERENCES "images"("id") ON DELETE CASCADE,
	"distance" smallint NOT NULL,
	"state" text DEFAULT 'open' NOT NULL CHECK ("state" IN ('open', 'merged', 'dismissed')),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	UNIQUE ("image_id", "duplicate_of_image_id")
);
--> statement-breakpoint
CREATE INDEX "duplicate_reports_state_idx" ON "duplicate_reports" ("state");
