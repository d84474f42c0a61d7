/**
 * Documents of any index by id, and the walk of an index's table: what the indexer (the outbox,
 * a full reindex, a drift check) and the live side read. Each index's rows are read here and
 * built into its documents (`<index>-documents.ts`); the index registry
 * (`src/search/indexes/index.ts`) names the table of each.
 */
import { getTableName } from 'drizzle-orm';
import type { Database } from '../../../db/client.js';
import type { IndexDocument } from '../../../search/engine.js';
import type { DocumentCache } from '../../../search/indexes/document-cache.js';
import { indexDefinitions, type IndexName } from '../../../search/indexes/index.js';
import { loadCommentDocuments } from './comments-documents.js';
import { loadFilterDocuments } from './filters-documents.js';
import { loadGalleryDocuments } from './galleries-documents.js';
import { countTableRows, tableIdBatches } from './ids.js';
import { loadImageDocuments } from './images-documents.js';
import { loadPostDocuments } from './posts-documents.js';
import { loadTagDocuments } from './tags-documents.js';

type DocumentLoader = (db: Database, ids: number[], cache?: DocumentCache) => Promise<IndexDocument[]>;

/** Each index's documents of the rows with these ids, in id order; ids without a row are absent. */
export const documentLoaders: Readonly<Record<IndexName, DocumentLoader>> = {
  images: loadImageDocuments,
  comments: loadCommentDocuments,
  posts: loadPostDocuments,
  galleries: loadGalleryDocuments,
  tags: loadTagDocuments,
  filters: loadFilterDocuments,
};

/** Build documents of any index by id (missing ids absent); `cache` for the batches of a reindex. */
export function loadDocuments(db: Database, name: IndexName, ids: number[], cache?: DocumentCache): Promise<IndexDocument[]> {
  return documentLoaders[name](db, ids, cache);
}

const tableName = (name: IndexName) => getTableName(indexDefinitions[name].table);

/** Number of rows in the index's source table. */
export function countRows(db: Database, name: IndexName): Promise<number> {
  return countTableRows(db, tableName(name));
}

/** Every id of the index's table in ascending order, in batches (see `tableIdBatches`). */
export function allIds(
  db: Database,
  name: IndexName,
  options: { batchSize?: number; after?: number; newestFirst?: boolean } = {},
): AsyncGenerator<number[]> {
  return tableIdBatches(db, tableName(name), options);
}
