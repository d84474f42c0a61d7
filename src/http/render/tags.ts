/** Tags with their relations, rendered (search routes call `renderTags` with their hit ids). */
import { loadTagRelations, loadTags } from '../../contexts/tags/load.js';
import type { TagRow } from '../../contexts/tags/types.js';
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import type { AppDeps } from '../context.js';
import { tagView, type TagJson } from '../views/tag.js';

/** The JSON of the given tag rows, in their order. Related slugs are sorted. */
export async function renderTagRows(deps: { db: Database; config: Pick<Config, 'cdnUrl'> }, rows: readonly TagRow[]): Promise<TagJson[]> {
  const relations = await loadTagRelations(deps.db, rows);
  return rows.map((tag, i) => tagView(deps.config, { tag, ...relations[i]! }));
}

/** In the order of `ids`; missing ids are dropped. */
export async function renderTags(deps: AppDeps, ids: readonly number[]): Promise<TagJson[]> {
  const byId = await loadTags(deps.db, ids);
  return renderTagRows(deps, ids.flatMap((id) => byId.get(id) ?? []));
}
