/**
 * Turning tag names into tag rows, as tagging an image does (reference §8.4): names are cleaned,
 * missing tags are created with their namespace, slug and category, aliases are replaced by their
 * targets, and the tags implied by the result are added (one level).
 */
import { eq, inArray } from 'drizzle-orm';
import { cleanTagName, slugify, splitNamespace } from '../../../grammar/index.js';
import { tags } from '../../db/schema/index.js';
import { categoryFor } from './categories.js';
import type { Executor } from '../../db/executor.js';
import { impliedTagIds } from './implications.js';
import type { TagRow } from './types.js';

/** Longest tag name, in UTF-8 bytes. */
export const MAX_TAG_NAME_BYTES = 255;

/**
 * Clean each name, drop empty and over-long ones, and de-duplicate keeping the first occurrence.
 */
export function cleanTagNames(names: Iterable<string>): string[] {
  const seen = new Set<string>();
  for (const raw of names) {
    const name = cleanTagName(raw);
    if (name === '' || Buffer.byteLength(name, 'utf8') > MAX_TAG_NAME_BYTES) continue;
    seen.add(name);
  }
  return [...seen];
}

/** A comma-separated tag list (`tag_input`) as clean, unique names. */
export function parseTagList(input: string): string[] {
  return cleanTagNames(input.split(','));
}

/** The columns of a new tag derived from its (clean) name. */
export function newTagValues(name: string): typeof tags.$inferInsert {
  const { namespace, nameInNamespace } = splitNamespace(name);
  return { name, slug: slugify(name), namespace, nameInNamespace, category: categoryFor(name, namespace) };
}

export interface GetOrCreateOptions {
  /** Add the tags implied by the result, one level (default true). */
  implications?: boolean;
}

/**
 * The tags for a list of names, creating the missing ones. Aliased tags are replaced by their
 * targets, duplicates dropped (first occurrence wins), then implied tags appended, and `oc` when an
 * `oc:` tag is present and a tag `oc` exists. Safe against concurrent callers creating the same
 * names (`ON CONFLICT DO NOTHING`, then load).
 */
export async function getOrCreateTags(tx: Executor, names: Iterable<string>, options: GetOrCreateOptions = {}): Promise<TagRow[]> {
  const clean = cleanTagNames(names);
  if (clean.length === 0) return [];

  // Sorted inserts take row locks in one order, so two concurrent callers cannot deadlock.
  await tx
    .insert(tags)
    .values([...clean].sort().map(newTagValues))
    .onConflictDoNothing();
  const loaded = await tx.select().from(tags).where(inArray(tags.name, clean));
  const byName = new Map(loaded.map((t) => [t.name, t]));

  const targetIds = loaded.flatMap((t) => (t.aliasedTagId === null ? [] : [t.aliasedTagId]));
  const targets = await loadByIds(tx, targetIds);

  const result: TagRow[] = [];
  const seen = new Set<number>();
  const push = (tag: TagRow | undefined) => {
    if (tag && !seen.has(tag.id)) {
      seen.add(tag.id);
      result.push(tag);
    }
  };
  for (const name of clean) {
    const tag = byName.get(name);
    // A name can be missing only if a concurrent rename or delete won the race; skip it.
    if (!tag) continue;
    push(tag.aliasedTagId === null ? tag : targets.get(tag.aliasedTagId));
  }

  if (options.implications ?? true) {
    const implied = await impliedTagIds(tx, result.map((t) => t.id));
    const ids = [...new Set([...implied.values()].flat())].filter((id) => !seen.has(id));
    const impliedRows = await loadByIds(tx, ids);
    const aliasTargets = await loadByIds(
      tx,
      [...impliedRows.values()].flatMap((t) => (t.aliasedTagId === null ? [] : [t.aliasedTagId])),
    );
    for (const id of ids) {
      const tag = impliedRows.get(id);
      push(tag?.aliasedTagId == null ? tag : aliasTargets.get(tag.aliasedTagId));
    }
    if (result.some((t) => t.namespace === 'oc')) {
      const [oc] = await tx.select().from(tags).where(eq(tags.name, 'oc'));
      push(oc?.aliasedTagId == null ? oc : (await loadByIds(tx, [oc.aliasedTagId])).get(oc.aliasedTagId));
    }
  }
  return result;
}

async function loadByIds(tx: Executor, ids: readonly number[]): Promise<Map<number, TagRow>> {
  if (ids.length === 0) return new Map();
  const rows = await tx.select().from(tags).where(inArray(tags.id, [...new Set(ids)]));
  return new Map(rows.map((t) => [t.id, t]));
}
