/**
 * Writing an import's forums (by short name), topics (by forum and slug) and posts: forums and
 * topics are found by their names, not ids, so a file may name ones the board already holds.
 */
import { and, eq } from 'drizzle-orm';
import { forums, posts, topics } from '../../db/schema/index.js';
import type { Transaction } from '../../db/executor.js';
import type { Resolved } from './check.js';
import type { ParsedBoard } from './schema.js';
import { differs, upsertById, type Tally } from './upsert.js';

/** Ids of forums and topics by their names, read from the board when the file does not hold them. */
class ForumIds {
  readonly forums = new Map<string, number>();
  readonly topics = new Map<string, number>();

  constructor(
    private readonly tx: Transaction,
    private readonly resolved: Resolved,
  ) {}

  async forumId(shortName: string): Promise<number> {
    if (!this.forums.has(shortName)) {
      const [row] = await this.tx.select({ id: forums.id }).from(forums).where(eq(forums.shortName, shortName));
      this.forums.set(shortName, row!.id);
    }
    return this.forums.get(shortName)!;
  }

  async topicId(key: string): Promise<number> {
    if (!this.topics.has(key)) {
      const { forum, slug } = this.resolved.topicKeys.get(key)!;
      const [row] = await this.tx.select({ id: topics.id }).from(topics).where(and(eq(topics.forumId, await this.forumId(forum)), eq(topics.slug, slug)));
      this.topics.set(key, row!.id);
    }
    return this.topics.get(key)!;
  }
}

export async function writeForumsTopicsAndPosts(tx: Transaction, board: ParsedBoard, resolved: Resolved, tally: Tally): Promise<void> {
  const ids = new ForumIds(tx, resolved);
  await writeForums(tx, board, ids, tally);
  await writeTopics(tx, board, ids, tally);
  await writePosts(tx, board, resolved, ids, tally);
}

/** Forums by short name. */
async function writeForums(tx: Transaction, board: ParsedBoard, ids: ForumIds, tally: Tally): Promise<void> {
  const forumIds = ids.forums;
  for (const f of board.forums) {
    const [existing] = await tx.select().from(forums).where(eq(forums.shortName, f.short_name));
    const row = {
      name: f.name,
      shortName: f.short_name,
      description: f.description,
      accessLevel: f.access_level,
      topicCount: f.topic_count,
      postCount: f.post_count,
    };
    if (!existing) {
      const [inserted] = await tx.insert(forums).values({ ...(f.id !== undefined ? { id: f.id } : {}), ...row }).returning({ id: forums.id });
      forumIds.set(f.short_name, inserted!.id);
      tally.add('inserted', 'forums');
    } else {
      forumIds.set(f.short_name, existing.id);
      if (differs(existing, row)) {
        await tx.update(forums).set(row).where(eq(forums.id, existing.id));
        tally.add('updated', 'forums');
      } else tally.add('unchanged', 'forums');
    }
  }
}

/** Topics by forum and slug. */
async function writeTopics(tx: Transaction, board: ParsedBoard, ids: ForumIds, tally: Tally): Promise<void> {
  const topicIds = ids.topics;
  for (const t of board.topics) {
    const fid = await ids.forumId(t.forum);
    const [existing] = await tx.select().from(topics).where(and(eq(topics.forumId, fid), eq(topics.slug, t.slug)));
    const row = {
      forumId: fid,
      userId: t.user_id,
      anonymous: t.anonymous,
      title: t.title,
      slug: t.slug,
      sticky: t.sticky,
      lockedAt: t.locked ? (t.locked_at ?? t.last_replied_to_at) : null,
      postCount: t.post_count,
      viewCount: t.view_count,
      lastRepliedToAt: t.last_replied_to_at,
      createdAt: t.created_at ?? t.last_replied_to_at,
    };
    if (!existing) {
      const [inserted] = await tx.insert(topics).values({ ...(t.id !== undefined ? { id: t.id } : {}), ...row, updatedAt: t.last_replied_to_at }).returning({ id: topics.id });
      topicIds.set(`${t.forum}/${t.slug}`, inserted!.id);
      tally.add('inserted', 'topics');
    } else {
      topicIds.set(`${t.forum}/${t.slug}`, existing.id);
      if (differs(existing, row)) {
        await tx.update(topics).set(row).where(eq(topics.id, existing.id));
        tally.add('updated', 'topics');
      } else tally.add('unchanged', 'topics');
    }
  }
}

/** Posts by id; positions default to creation order within the file's posts of each topic. */
async function writePosts(tx: Transaction, board: ParsedBoard, resolved: Resolved, ids: ForumIds, tally: Tally): Promise<void> {
  const byTopic = new Map<string, typeof board.posts>();
  for (const p of board.posts) {
    const key = [...resolved.topicKeys.values()].filter((t) => t.slug === p.topic && (p.forum === undefined || t.forum === p.forum)).map((t) => `${t.forum}/${t.slug}`)[0]!;
    byTopic.set(key, [...(byTopic.get(key) ?? []), p]);
  }
  const postRows: Array<typeof posts.$inferInsert> = [];
  for (const [key, list] of byTopic) {
    const tid = await ids.topicId(key);
    const ordered = [...list].sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.id - b.id);
    ordered.forEach((p, index) => postRows.push({
      id: p.id,
      topicId: tid,
      userId: p.user_id,
      anonymous: p.anonymous,
      body: p.body ?? '',
      topicPosition: p.topic_position ?? index,
      hiddenFromUsers: p.body === null,
      editedAt: p.edited_at,
      editReason: p.edit_reason,
      createdAt: p.created_at,
      updatedAt: p.updated_at ?? p.created_at,
    }));
  }
  await upsertById(tx, posts, 'id', postRows, tally);
}
