/**
 * Tag rows as the API shows them, with their relations (aliases, implications, DNP entries)
 * loaded: uncached, for the dumps and for what the app's cache of rendered tags does not hold
 * (src/http/render/tags.ts).
 */
import type { Config } from '../config.js';
import { loadTagRelations } from '../contexts/tags/load.js';
import type { TagRow } from '../contexts/tags/types.js';
import type { Database } from '../db/client.js';
import { tagView, type TagJson } from './views/tag.js';

/** The JSON of the given tag rows, in their order. Related slugs are sorted. */
export async function renderTagRows(deps: { db: Database; config: Pick<Config, 'cdnUrl'> }, rows: readonly TagRow[]): Promise<TagJson[]> {
  const relations = await loadTagRelations(deps.db, rows);
  return rows.map((tag, i) => tagView(deps.config, { tag, ...relations[i]! }));
}
