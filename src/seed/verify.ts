/**
 * Consistency checks of a board's counters against the rows they count. The seeders promise
 * these hold; they are also a cheap health check of any board.
 *
 * Conventions: tag `images_count` counts visible images (hidden ones give their count back);
 * every other counter counts all of its rows (hidden or anonymous ones included).
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../db/executor.js';

interface Check {
  name: string;
  /** Rows that disagree: an id, the stored value and the counted one. */
  query: string;
}

/**
 * A counter checked against a count of the rows that point at its row; `counted` is a subquery
 * on the counter's row, `o`.
 */
function countedBy(table: string, column: string, counted: string): Check {
  return {
    name: `${table}.${column}`,
    query: `select o.id, o.${column} as stored, (${counted}) as counted from ${table} o where o.${column} <> (${counted})`,
  };
}

const CHECKS: Check[] = [
  {
    name: 'images.score',
    query: `select id, score as stored, upvotes_count - downvotes_count as counted from images where score <> upvotes_count - downvotes_count`,
  },
  {
    name: 'images.upvotes_count',
    query: `select i.id, i.upvotes_count as stored, count(v.user_id) filter (where v.up) as counted
      from images i left join image_votes v on v.image_id = i.id group by i.id
      having i.upvotes_count <> count(v.user_id) filter (where v.up)`,
  },
  {
    name: 'images.downvotes_count',
    query: `select i.id, i.downvotes_count as stored, count(v.user_id) filter (where not v.up) as counted
      from images i left join image_votes v on v.image_id = i.id group by i.id
      having i.downvotes_count <> count(v.user_id) filter (where not v.up)`,
  },
  {
    name: 'images.faves_count',
    query: `select i.id, i.faves_count as stored, count(f.user_id) as counted
      from images i left join image_faves f on f.image_id = i.id group by i.id having i.faves_count <> count(f.user_id)`,
  },
  {
    name: 'images.hides_count',
    query: `select i.id, i.hides_count as stored, count(h.user_id) as counted
      from images i left join image_hides h on h.image_id = i.id group by i.id having i.hides_count <> count(h.user_id)`,
  },
  {
    name: 'images.comments_count',
    query: `select i.id, i.comments_count as stored, count(c.id) as counted
      from images i left join comments c on c.image_id = i.id group by i.id having i.comments_count <> count(c.id)`,
  },
  {
    name: 'tags.images_count',
    query: `select t.id, t.images_count as stored, count(i.id) as counted
      from tags t left join image_taggings it on it.tag_id = t.id
      left join images i on i.id = it.image_id and not i.hidden_from_users
      group by t.id having t.images_count <> count(i.id)`,
  },
  countedBy('users', 'images_count', 'select count(*) from images i where i.user_id = o.id'),
  countedBy('users', 'comments_count', 'select count(*) from comments c where c.user_id = o.id'),
  countedBy('users', 'posts_count', 'select count(*) from posts p where p.user_id = o.id'),
  countedBy('users', 'topics_count', 'select count(*) from topics t where t.user_id = o.id'),
  countedBy('forums', 'topic_count', 'select count(*) from topics t where t.forum_id = o.id'),
  countedBy('forums', 'post_count', 'select count(*) from posts p join topics t on t.id = p.topic_id where t.forum_id = o.id'),
  countedBy('topics', 'post_count', 'select count(*) from posts p where p.topic_id = o.id'),
  {
    name: 'posts.topic_position',
    query: `select topic_id as id, max(topic_position) + 1 as stored, count(distinct topic_position) as counted
      from posts group by topic_id having min(topic_position) <> 0 or max(topic_position) + 1 <> count(*) or count(distinct topic_position) <> count(*)`,
  },
  countedBy('galleries', 'image_count', 'select count(*) from gallery_interactions gi where gi.gallery_id = o.id'),
  countedBy('filters', 'user_count', 'select count(*) from users u where u.current_filter_id = o.id'),
];

/**
 * Every counter that disagrees with its rows, as `<table.column> <id>: stored S, counted C`
 * (at most `limit` per counter). An empty list means the board is consistent.
 */
export async function counterProblems(db: Executor, limit = 5): Promise<string[]> {
  const problems: string[] = [];
  for (const check of CHECKS) {
    const rows = await db.execute<{ id: number; stored: number; counted: number }>(sql.raw(`${check.query} limit ${limit}`));
    for (const r of rows) problems.push(`${check.name} ${r.id}: stored ${r.stored}, counted ${r.counted}`);
  }
  return problems;
}

/**
 * Recompute every counter above from the rows (one statement per counter). For loaders that
 * write rows without keeping counters.
 */
export async function recomputeCounters(db: Executor): Promise<void> {
  const statements = [
    `update images i set upvotes_count = coalesce(v.up, 0), downvotes_count = coalesce(v.down, 0), score = coalesce(v.up, 0) - coalesce(v.down, 0)
      from images x left join (select image_id, count(*) filter (where up) as up, count(*) filter (where not up) as down
        from image_votes group by image_id) v on v.image_id = x.id
      where i.id = x.id and (i.upvotes_count, i.downvotes_count, i.score) is distinct from (coalesce(v.up, 0), coalesce(v.down, 0), coalesce(v.up, 0) - coalesce(v.down, 0))`,
    `update images i set faves_count = c.n from (select x.id, count(f.user_id)::int as n from images x left join image_faves f on f.image_id = x.id group by x.id) c
      where c.id = i.id and i.faves_count <> c.n`,
    `update images i set hides_count = c.n from (select x.id, count(h.user_id)::int as n from images x left join image_hides h on h.image_id = x.id group by x.id) c
      where c.id = i.id and i.hides_count <> c.n`,
    `update images i set comments_count = c.n from (select x.id, count(m.id)::int as n from images x left join comments m on m.image_id = x.id group by x.id) c
      where c.id = i.id and i.comments_count <> c.n`,
    `update tags t set images_count = c.n from (select t2.id, count(i.id)::int as n from tags t2
        left join image_taggings it on it.tag_id = t2.id left join images i on i.id = it.image_id and not i.hidden_from_users group by t2.id) c
      where c.id = t.id and t.images_count <> c.n`,
    `update users u set images_count = (select count(*) from images i where i.user_id = u.id),
        comments_count = (select count(*) from comments c where c.user_id = u.id),
        posts_count = (select count(*) from posts p where p.user_id = u.id),
        topics_count = (select count(*) from topics t where t.user_id = u.id)
      where (u.images_count, u.comments_count, u.posts_count, u.topics_count) is distinct from (
        (select count(*) from images i where i.user_id = u.id), (select count(*) from comments c where c.user_id = u.id),
        (select count(*) from posts p where p.user_id = u.id), (select count(*) from topics t where t.user_id = u.id))`,
    `update topics t set post_count = (select count(*) from posts p where p.topic_id = t.id)
      where t.post_count <> (select count(*) from posts p where p.topic_id = t.id)`,
    `update forums f set topic_count = (select count(*) from topics t where t.forum_id = f.id),
        post_count = (select count(*) from posts p join topics t on t.id = p.topic_id where t.forum_id = f.id)
      where (f.topic_count, f.post_count) is distinct from ((select count(*) from topics t where t.forum_id = f.id),
        (select count(*) from posts p join topics t on t.id = p.topic_id where t.forum_id = f.id))`,
    `update galleries g set image_count = (select count(*) from gallery_interactions gi where gi.gallery_id = g.id)
      where g.image_count <> (select count(*) from gallery_interactions gi where gi.gallery_id = g.id)`,
    `update filters f set user_count = (select count(*) from users u where u.current_filter_id = f.id)
      where f.user_count <> (select count(*) from users u where u.current_filter_id = f.id)`,
  ];
  for (const s of statements) await db.execute(sql.raw(s));
}
