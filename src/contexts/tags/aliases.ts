/**
 * Tag aliases (reference §8.4): an alias is a tag whose `aliased_tag_id` names the tag that
 * replaces it wherever it is used. Rules: a tag may not alias itself, the target may not itself be
 * aliased (no chains), and a tag that has aliases of its own may not be aliased.
 */
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { filters, imageTaggings, images, tagImplications, tags, users } from '../../db/schema/index.js';
import { announceChanges } from '../../db/record-change-feed.js';
import type { Executor } from '../../db/executor.js';
import { TagRuleError } from '../errors.js';

export interface AliasCandidate {
  id: number;
  name: string;
  aliasedTagId: number | null;
}

/**
 * What is wrong with aliasing `tag` to `target`, or null. `tagHasAliases` says whether other tags
 * are aliased to `tag`.
 */
export function aliasProblem(tag: AliasCandidate, target: AliasCandidate, tagHasAliases: boolean): string | null {
  if (tag.id === target.id) return `${tag.name} may not be aliased to itself`;
  if (target.aliasedTagId !== null) return `${target.name} is itself aliased and would create a transitive alias`;
  if (tagHasAliases) return `${tag.name} has aliases of its own and may not be aliased`;
  return null;
}

/**
 * Problems of a whole set of tags with their alias targets (used to validate imports): self
 * aliases, chains, and targets that are missing.
 */
export function aliasSetProblems(all: readonly AliasCandidate[]): Map<number, string> {
  const byId = new Map(all.map((t) => [t.id, t]));
  const problems = new Map<number, string>();
  for (const tag of all) {
    if (tag.aliasedTagId === null) continue;
    const target = byId.get(tag.aliasedTagId);
    if (!target) {
      problems.set(tag.id, `alias target ${tag.aliasedTagId} does not exist`);
      continue;
    }
    const hasAliases = all.some((t) => t.aliasedTagId === tag.id);
    const problem = aliasProblem(tag, target, hasAliases);
    if (problem) problems.set(tag.id, problem);
  }
  return problems;
}

/** Recompute `images_count` (visible images carrying the tag) of the given tags. */
export async function recountTagImages(tx: Executor, tagIds: readonly number[]): Promise<void> {
  if (tagIds.length === 0) return;
  await tx
    .update(tags)
    .set({
      imagesCount: sql`(select count(*)::int from ${imageTaggings} it join ${images} i on i.id = it.image_id
        where it.tag_id = ${tags.id} and not i.hidden_from_users)`,
    })
    .where(inArray(tags.id, [...tagIds]));
}

async function loadByName(tx: Executor, name: string): Promise<AliasCandidate> {
  const [row] = await tx
    .select({ id: tags.id, name: tags.name, aliasedTagId: tags.aliasedTagId })
    .from(tags)
    .where(eq(tags.name, name));
  if (!row) throw new TagRuleError(`unknown tag ${name}`);
  return row;
}

/**
 * Alias the tag named `tagName` to the tag named `targetName`, as the site does: the images,
 * filters, watch lists and implications that used the tag now use the target, and both counts
 * are recomputed. Throws TagRuleError when a rule forbids it. Run it inside a transaction.
 */
export async function aliasTag(tx: Executor, tagName: string, targetName: string): Promise<void> {
  const tag = await loadByName(tx, tagName);
  const target = await loadByName(tx, targetName);
  const [incoming] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(tags)
    .where(and(eq(tags.aliasedTagId, tag.id), ne(tags.id, tag.id)));
  const problem = aliasProblem(tag, target, (incoming?.n ?? 0) > 0);
  if (problem) throw new TagRuleError(problem);

  await tx.update(tags).set({ aliasedTagId: target.id, updatedAt: sql`now()` }).where(eq(tags.id, tag.id));

  // Images: carry the target instead (keeping the alias's position), drop the alias.
  await tx.execute(sql`
    insert into image_taggings (image_id, tag_id, position)
    select image_id, ${target.id}, position from image_taggings where tag_id = ${tag.id}
    on conflict do nothing`);
  await tx.delete(imageTaggings).where(eq(imageTaggings.tagId, tag.id));

  // Implications: whatever implied the alias now implies the target; the alias implies nothing.
  await tx.execute(sql`
    insert into tag_implications (tag_id, implied_tag_id)
    select tag_id, ${target.id} from tag_implications where implied_tag_id = ${tag.id} and tag_id <> ${target.id}
    on conflict do nothing`);
  await tx.delete(tagImplications).where(eq(tagImplications.impliedTagId, tag.id));
  await tx.delete(tagImplications).where(eq(tagImplications.tagId, tag.id));

  // Filters and watch lists name tags by id.
  const swap = (column: AnyPgColumn) =>
    sql`(select coalesce(array_agg(distinct x order by x), '{}') from unnest(array_replace(${column}, ${tag.id}, ${target.id})) x)`;
  await tx.update(filters).set({ hiddenTagIds: swap(filters.hiddenTagIds) }).where(sql`${tag.id} = any(${filters.hiddenTagIds})`);
  await tx
    .update(filters)
    .set({ spoileredTagIds: swap(filters.spoileredTagIds) })
    .where(sql`${tag.id} = any(${filters.spoileredTagIds})`);
  const watchers = await tx
    .update(users)
    .set({ watchedTagIds: swap(users.watchedTagIds) })
    .where(sql`${tag.id} = any(${users.watchedTagIds})`)
    .returning({ id: users.id });
  await announceChanges(tx, watchers.map(({ id }) => ({ kind: 'user', id })));

  await recountTagImages(tx, [tag.id, target.id]);
}
