/** Tags by id or slug, and the relations a tag's page shows: alias target, aliases, implications, DNP entries. */
import { asc, eq, inArray } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Database } from '../../db/client.js';
import { dnpEntries, tagImplications, tags } from '../../db/schema/index.js';
import type { DnpEntryRow, TagRow } from './types.js';

const target = alias(tags, 'target');
const related = alias(tags, 'related');

/** What a tag is related to, by slug (each list sorted). */
export interface TagRelations {
  aliasedTagSlug: string | null;
  aliasSlugs: string[];
  impliedTagSlugs: string[];
  impliedByTagSlugs: string[];
  dnpEntries: DnpEntryRow[];
  /** The ids of the tags named above (whose slugs the tag's answer shows). */
  relatedTagIds: number[];
}

/** The relations of each of the given tags, in their order. */
export async function loadTagRelations(db: Database, rows: readonly TagRow[]): Promise<TagRelations[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((t) => t.id);
  const targetIds = [...new Set(rows.flatMap((t) => (t.aliasedTagId === null ? [] : [t.aliasedTagId])))];
  const [targets, aliases, implied, impliedBy, dnps] = await Promise.all([
    targetIds.length === 0 ? Promise.resolve([]) : db.select({ id: tags.id, slug: tags.slug }).from(tags).where(inArray(tags.id, targetIds)),
    db.select({ of: tags.aliasedTagId, id: tags.id, slug: tags.slug }).from(tags).where(inArray(tags.aliasedTagId, ids)).orderBy(asc(tags.slug)),
    db
      .select({ of: tagImplications.tagId, id: target.id, slug: target.slug })
      .from(tagImplications)
      .innerJoin(target, eq(target.id, tagImplications.impliedTagId))
      .where(inArray(tagImplications.tagId, ids))
      .orderBy(asc(target.slug)),
    db
      .select({ of: tagImplications.impliedTagId, id: related.id, slug: related.slug })
      .from(tagImplications)
      .innerJoin(related, eq(related.id, tagImplications.tagId))
      .where(inArray(tagImplications.impliedTagId, ids))
      .orderBy(asc(related.slug)),
    db.select().from(dnpEntries).where(inArray(dnpEntries.tagId, ids)).orderBy(asc(dnpEntries.id)),
  ]);
  const group = <T extends { of: number | null }>(list: T[]) => {
    const m = new Map<number, T[]>();
    for (const x of list) if (x.of !== null) m.set(x.of, [...(m.get(x.of) ?? []), x]);
    return m;
  };
  const targetSlugs = new Map(targets.map((t) => [t.id, t.slug]));
  const aliasMap = group(aliases);
  const impliedMap = group(implied);
  const impliedByMap = group(impliedBy);
  const dnpMap = group(dnps.map((d) => ({ ...d, of: d.tagId })));
  return rows.map((tag) => {
    const aliases = aliasMap.get(tag.id) ?? [];
    const implied = impliedMap.get(tag.id) ?? [];
    const impliedBy = impliedByMap.get(tag.id) ?? [];
    return {
      aliasedTagSlug: tag.aliasedTagId === null ? null : (targetSlugs.get(tag.aliasedTagId) ?? null),
      aliasSlugs: aliases.map((a) => a.slug),
      impliedTagSlugs: implied.map((a) => a.slug),
      impliedByTagSlugs: impliedBy.map((a) => a.slug),
      dnpEntries: dnpMap.get(tag.id) ?? [],
      relatedTagIds: [...(tag.aliasedTagId === null ? [] : [tag.aliasedTagId]), ...[...aliases, ...implied, ...impliedBy].map((a) => a.id)],
    };
  });
}

/** The tags of `ids` that exist, by id. */
export async function loadTags(db: Database, ids: readonly number[]): Promise<Map<number, TagRow>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.select().from(tags).where(inArray(tags.id, unique));
  return new Map(rows.map((r) => [r.id, r]));
}

export async function findTagBySlug(db: Database, slug: string): Promise<TagRow | undefined> {
  const rows = await db.select().from(tags).where(eq(tags.slug, slug)).limit(1);
  return rows[0];
}
