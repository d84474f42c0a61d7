/** Forums the API shows: only those with access level `normal` exist for it. */
import { and, asc, count, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { forums } from '../../db/schema/index.js';
import type { Page, PageWindow } from '../page.js';
import type { ForumRow } from './types.js';

const normalForum = eq(forums.accessLevel, 'normal');

/** By name, then id. */
export async function listForums(db: Database, { perPage, offset }: PageWindow): Promise<Page<ForumRow>> {
  const [rows, totals] = await Promise.all([
    db.select().from(forums).where(normalForum).orderBy(asc(forums.name), asc(forums.id)).limit(perPage).offset(offset),
    db.select({ n: count() }).from(forums).where(normalForum),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

export async function findForum(db: Database, shortName: string): Promise<ForumRow | undefined> {
  const rows = await db.select().from(forums).where(and(eq(forums.shortName, shortName), normalForum)).limit(1);
  return rows[0];
}
