/**
 * Approving images that wait for it. An upload by a user who is neither `verified` nor staff is
 * stored unapproved and left out of every search until it is approved (reference §8.3); approval
 * does what Philomena's does: `approved`, `first_seen_at` reset to now (the image is new to
 * searches), and the uploader's uploads count raised. The outbox carries the change to the index.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { AdminError } from '../errors.js';

export interface Approval {
  /** Images approved now. */
  approved: number[];
  /** Images that were approved already. */
  already: number[];
}

/** `(1, 2, 3)` for an `in` list. */
const idList = (ids: readonly number[]) => sql`(${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`;

export async function approveImages(db: Database, ids: readonly number[]): Promise<Approval> {
  const wanted = [...new Set(ids)].sort((a, b) => a - b);
  if (wanted.length === 0) return { approved: [], already: [] };
  return db.transaction(async (tx) => {
    const found = await tx.execute<{ id: number; approved: boolean }>(
      sql`select id, approved from images where id in ${idList(wanted)} order by id for no key update`,
    );
    const rows = [...found];
    const missing = wanted.filter((id) => !rows.some((r) => r.id === id));
    if (missing.length > 0) throw new AdminError(`no image with id ${missing.join(', ')}`);
    const pending = rows.filter((r) => !r.approved).map((r) => r.id);
    if (pending.length > 0) {
      await tx.execute(sql`
        with approved as (
          update images set approved = true, first_seen_at = now(), updated_at = now()
          where id in ${idList(pending)} returning user_id)
        update users u set images_count = u.images_count + n.count
        from (select user_id, count(*)::int as count from approved where user_id is not null group by user_id) n
        where u.id = n.user_id`);
    }
    return { approved: pending, already: rows.filter((r) => r.approved).map((r) => r.id) };
  });
}
