/** Tags looked up by name, aliases resolved to their targets (filter tag lists written by hand). */
import { inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { tags } from '../../db/schema/index.js';
import { parseTagList } from './get-or-create.js';

export interface NamedTags {
  /** Target tag id of each known name (an alias counts as its target). */
  ids: Map<string, number>;
  /** Names, cleaned, that no tag has. */
  unknown: string[];
}

/** The tags of a comma-separated list of names, cleaned as tagging cleans them. */
export async function tagsByName(db: Database, list: string): Promise<NamedTags> {
  const names = parseTagList(list);
  if (names.length === 0) return { ids: new Map(), unknown: [] };
  const rows = await db.select({ id: tags.id, name: tags.name, aliasedTagId: tags.aliasedTagId }).from(tags).where(inArray(tags.name, names));
  const ids = new Map(rows.map((r) => [r.name, r.aliasedTagId ?? r.id]));
  return { ids, unknown: names.filter((n) => !ids.has(n)) };
}

/** Names of the given tag ids, by id. */
export async function tagNames(db: Database, ids: readonly number[]): Promise<Map<number, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.select({ id: tags.id, name: tags.name }).from(tags).where(inArray(tags.id, unique));
  return new Map(rows.map((r) => [r.id, r.name]));
}
