/** Tags with their relations, rendered (search routes call `renderTagJson` with their hit ids). */
import { loadTagRelations, loadTags } from '../../contexts/tags/load.js';
import type { TagRow } from '../../contexts/tags/types.js';
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import type { AppDeps } from '../context.js';
import { liveCaches } from '../read-caches.js';
import { tagView, type TagJson } from '../views/tag.js';
import { cachedRecordJson } from './record-json-cache.js';

/** The JSON of the given tag rows, in their order. Related slugs are sorted. */
export async function renderTagRows(deps: { db: Database; config: Pick<Config, 'cdnUrl'> }, rows: readonly TagRow[]): Promise<TagJson[]> {
  const relations = await loadTagRelations(deps.db, rows);
  return rows.map((tag, i) => tagView(deps.config, { tag, ...relations[i]! }));
}

/**
 * The JSON texts of the tags of `ids` that exist, in their order, through the app's cache of
 * rendered tags. An entry watches the tag (`tags:id`: its row, counts, aliases and implications
 * as their triggers announce them), its DNP entries (`tag_dnp:id`) and each related tag whose
 * slug it shows.
 */
export async function renderTagJson(deps: AppDeps, ids: readonly number[]): Promise<string[]> {
  return cachedRecordJson(liveCaches(deps.caches)?.tags ?? null, ids, async (missing) => {
    const rows = [...(await loadTags(deps.db, missing)).values()];
    const relations = await loadTagRelations(deps.db, rows);
    return rows.map((tag, i) => ({
      id: tag.id,
      json: JSON.stringify(tagView(deps.config, { tag, ...relations[i]! })),
      watches: [`tags:${tag.id}`, `tag_dnp:${tag.id}`, ...relations[i]!.relatedTagIds.map((id) => `tags:${id}`)],
    }));
  });
}
