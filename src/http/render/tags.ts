/** Tags with their relations, rendered (search routes call `renderTagJson` with their hit ids). */
import { findTagBySlug, loadTagRelations, loadTags } from '../../contexts/tags/load.js';
import type { TagRow } from '../../contexts/tags/types.js';
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import type { AppDeps } from '../context.js';
import { liveCaches } from '../../caches/read-caches.js';
import { tagView, type TagJson } from '../views/tag.js';
import { cachedRecordJson } from '../../caches/record-json-cache.js';

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

/** Whether a tag's JSON text shows `slug` as its own slug (the field is followed by `description`). */
const showsSlug = (json: string, slug: string) => json.includes(`"slug":${JSON.stringify(slug)},"description":`);

/**
 * The JSON text of the tag whose slug is `slug`, or null: through the cache of rendered tags, so
 * that a tag page read again costs no query (`GET /tags/:slug`).
 */
export async function renderTagBySlug(deps: AppDeps, slug: string): Promise<string | null> {
  const slugIds = liveCaches(deps.caches)?.tagSlugs;
  const guess = slugIds?.guess(slug);
  if (guess !== undefined) {
    const [json] = await renderTagJson(deps, [guess]);
    if (json !== undefined && showsSlug(json, slug)) return json;
    slugIds!.forget(slug);
  }
  const row = await findTagBySlug(deps.db, slug);
  if (!row) return null;
  const [json] = await renderTagJson(deps, [row.id]);
  // renamed between the two reads: answer the row as it was read
  if (json === undefined || !showsSlug(json, slug)) return JSON.stringify((await renderTagRows(deps, [row]))[0]);
  slugIds?.remember(slug, row.id);
  return json;
}
