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

/** A UTF-16 half of a pair standing alone: UTF-8 (and so PostgreSQL) stores it as U+FFFD. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** Control characters that are not whitespace: PostgreSQL's text cannot hold NUL, and none belongs in a name. */
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f]/g;

/**
 * Clean each name, drop empty and over-long ones, and de-duplicate keeping the first occurrence.
 * A name is first made storable as it is written: lone surrogates become U+FFFD (what the
 * database would turn them into, so the tag found afterwards has the name asked for) and control
 * characters go.
 */
export function cleanTagNames(names: Iterable<string>): string[] {
  const seen = new Set<string>();
  for (const raw of names) {
    const name = cleanTagName(raw.replace(LONE_SURROGATE, '\uFFFD').replace(CONTROL, ''));
    if (name === '' || Buffer.byteLength(name, 'utf8') > MAX_TAG_NAME_BYTES) continue;
    seen.add(name);
  }
  return [...seen];
}

/**
 * Most tags one submission may name. The reference sets no number (its only bound is the request
 * size); Derpibooru's most-tagged images carry a few hundred, so 1,000 leaves room while keeping a
 * submission's tag work, and the rows it may create, small.
 */
export const MAX_TAG_INPUT_TAGS = 1000;

/** Rows per insert: 5 columns each stays far below the protocol's 65,535 parameters. */
const INSERT_CHUNK = 1000;

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
 * names (`ON CONFLICT (name) DO NOTHING`, then load). The conflict names its target: a conflict of
 * anything else (an id the sequence handed out twice) is an error, not a silently missing tag, and
 * every name must be found after the insert.
 */
export async function getOrCreateTags(tx: Executor, names: Iterable<string>, options: GetOrCreateOptions = {}): Promise<TagRow[]> {
  const clean = cleanTagNames(names);
  if (clean.length === 0) return [];

  // Sorted inserts take row locks in one order, so two concurrent callers cannot deadlock.
  const sorted = [...clean].sort();
  const loaded: TagRow[] = [];
  for (let i = 0; i < sorted.length; i += INSERT_CHUNK) {
    const chunk = sorted.slice(i, i + INSERT_CHUNK);
    await tx.insert(tags).values(chunk.map(newTagValues)).onConflictDoNothing({ target: tags.name });
    loaded.push(...(await tx.select().from(tags).where(inArray(tags.name, chunk))));
  }
  const byName = new Map(loaded.map((t) => [t.name, t]));
  const missing = clean.filter((name) => !byName.has(name));
  if (missing.length > 0) throw new Error(`tags missing after get-or-create: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''}`);

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
    const tag = byName.get(name)!;
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
