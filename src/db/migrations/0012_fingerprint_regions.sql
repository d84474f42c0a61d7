-- The DCT hashes of five 90 % regions of each image (centre, nw, ne, sw, se; see
-- src/media/fingerprint.ts), for finding copies with a trimmed border or two sides cut off.
-- Rows written before have none until `npm run admin -- fingerprints backfill` recomputes them
-- (their version is older).
ALTER TABLE "image_fingerprints" ADD COLUMN "rhashes" text[] NOT NULL DEFAULT '{}';
