/**
 * The registry of search indices, the only one: one definition per index (mapping, query fields,
 * document builder, source table), the query fields by index the compiler is given, and the id
 * iteration a full reindex or drift check walks.
 */
import { getTableName } from 'drizzle-orm';
import type { FieldSet } from '../../../grammar/index.js';
import type { Database } from '../../db/client.js';
import type { IndexDocument, IndexSpec } from '../engine.js';
import type { DocumentCache } from './document-cache.js';
import { countTableRows, tableIdBatches } from '../../contexts/search/documents/ids.js';
import { commentsIndex } from './comments/index.js';
import { filtersIndex } from './filters/index.js';
import { galleriesIndex } from './galleries/index.js';
import { imagesIndex } from './images/index.js';
import { postsIndex } from './posts/index.js';
import { tagsIndex } from './tags/index.js';
import { indexNames, type IndexName, type IndexDefinition } from './definition.js';

export { indexNames, type IndexName, type IndexedTable, type IndexDefinition } from './definition.js';

export const indexDefinitions: Record<IndexName, IndexDefinition> = {
  images: imagesIndex,
  comments: commentsIndex,
  posts: postsIndex,
  galleries: galleriesIndex,
  tags: tagsIndex,
  filters: filtersIndex,
};

/** The search language's fields of each index, as its definition gives them. */
export const queryFields: Readonly<Record<IndexName, FieldSet>> = Object.freeze(
  Object.fromEntries(indexNames.map((name) => [name, indexDefinitions[name].fields])) as Record<IndexName, FieldSet>,
);

/** Whether `name` names an index (a non-string names none). */
export function isIndexName(name: unknown): name is IndexName {
  return typeof name === 'string' && (indexNames as readonly string[]).includes(name);
}

/** What an engine needs to create the index. */
export function indexSpec(name: IndexName): IndexSpec {
  const def = indexDefinitions[name];
  return { name: def.name, mapping: def.mapping };
}

/** Build documents of any index by id (missing ids absent); `cache` for the batches of a reindex. */
export function loadDocuments(db: Database, name: IndexName, ids: number[], cache?: DocumentCache): Promise<IndexDocument[]> {
  return indexDefinitions[name].loadDocuments(db, ids, cache);
}

const tableName = (name: IndexName) => getTableName(indexDefinitions[name].table);

/** Number of rows in the index's source table. */
export function countRows(db: Database, name: IndexName): Promise<number> {
  return countTableRows(db, tableName(name));
}

/** Every id of the index's table in ascending order (or newest first), in batches (see `tableIdBatches`). */
export function allIds(
  db: Database,
  name: IndexName,
  options: { batchSize?: number; after?: number; newestFirst?: boolean } = {},
): AsyncGenerator<number[]> {
  return tableIdBatches(db, tableName(name), options);
}
