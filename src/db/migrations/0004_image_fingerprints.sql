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
-- The four 16-bit chunks of each hash, for finding near-duplicates at submission by
-- multi-index hashing in SQL (src/contexts/images/duplicates.ts).
CREATE INDEX "image_fingerprints_p0_idx" ON "image_fingerprints" (substr("phash", 1, 4));--> statement-breakpoint
CREATE INDEX "image_fingerprints_p1_idx" ON "image_fingerprints" (substr("phash", 5, 4));--> statement-breakpoint
CREATE INDEX "image_fingerprints_p2_idx" ON "image_fingerprints" (substr("phash", 9, 4));--> statement-breakpoint
CREATE INDEX "image_fingerprints_p3_idx" ON "image_fingerprints" (substr("phash", 13, 4));--> statement-breakpoint
CREATE INDEX "image_fingerprints_c0_idx" ON "image_fingerprints" (substr("chash", 1, 4));--> statement-breakpoint
CREATE INDEX "image_fingerprints_c1_idx" ON "image_fingerprints" (substr("chash", 5, 4));--> statement-breakpoint
CREATE INDEX "image_fingerprints_c2_idx" ON "image_fingerprints" (substr("chash", 9, 4));--> statement-breakpoint
CREATE INDEX "image_fingerprints_c3_idx" ON "image_fingerprints" (substr("chash", 13, 4));
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
