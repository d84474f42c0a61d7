/** The topics of a forum that the API shows: hidden topics never are. */
import { and, count, desc, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { topics } from '../../db/schema/index.js';
import type { Page, PageWindow } from '../page.js';
import type { TopicRow } from './types.js';

const visibleIn = (forumId: number) => and(eq(topics.forumId, forumId), eq(topics.hiddenFromUsers, false));

/** Sticky topics first, then by last reply, newest first. */
export async function listTopics(db: Database, forumId: number, { perPage, offset }: PageWindow): Promise<Page<TopicRow>> {
  const visible = visibleIn(forumId);
  const [rows, totals] = await Promise.all([
    db
      .select()
      .from(topics)
      .where(visible)
      .orderBy(desc(topics.sticky), desc(topics.lastRepliedToAt), desc(topics.id))
      .limit(perPage)
      .offset(offset),
    db.select({ n: count() }).from(topics).where(visible),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

export async function findTopic(db: Database, forumId: number, slug: string): Promise<TopicRow | undefined> {
  const rows = await db
    .select()
    .from(topics)
    .where(and(visibleIn(forumId), eq(topics.slug, slug)))
    .limit(1);
  return rows[0];
}
