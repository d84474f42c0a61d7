/** A user's hides, faves and votes on a set of images (reference §5.4), read in one round trip. */
import { sqlClientOf, type Database } from '../../db/client.js';

/** Hides, faves and votes of one user on a set of images, in that order, each by image id. */
const INTERACTIONS = `
select 0 as kind, image_id, null::boolean as up from image_hides where user_id = $1 and image_id = any($2::int[])
union all
select 1, image_id, null from image_faves where user_id = $1 and image_id = any($2::int[])
union all
select 2, image_id, up from image_votes where user_id = $1 and image_id = any($2::int[])
order by kind, image_id`;

export interface Interaction {
  kind: 'hidden' | 'faved' | 'voted';
  imageId: number;
  /** For votes: up or down; null otherwise. */
  up: boolean | null;
}

const KINDS = ['hidden', 'faved', 'voted'] as const;

/**
 * The interactions of `userId` with the given images: hides, faves and votes, in that order, each
 * by image id. Raw SQL: it runs on every image list of a signed-in caller.
 */
export async function loadInteractions(db: Database, userId: number, imageIds: readonly number[]): Promise<Interaction[]> {
  if (imageIds.length === 0) return [];
  const ids = [...new Set(imageIds)];
  const rows = await sqlClientOf(db).unsafe<{ kind: 0 | 1 | 2; image_id: number; up: boolean | null }[]>(INTERACTIONS, [userId, ids as never], {
    prepare: true,
  });
  return rows.map((r) => ({ kind: KINDS[r.kind], imageId: r.image_id, up: r.up }));
}
