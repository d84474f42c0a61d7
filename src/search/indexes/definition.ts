/**
 * What every index definition provides. Kept apart from the registry (index.ts) so that the
 * per-index folders, which the registry imports, do not import the registry back.
 */
import type { FieldSet } from '../../../grammar/index.js';
import type { comments, filters, galleries, images, posts, tags } from '../../db/schema/index.js';
import type { IndexMapping } from '../mapping.js';

export const indexNames = ['images', 'comments', 'posts', 'galleries', 'tags', 'filters'] as const;
export type IndexName = (typeof indexNames)[number];

/** The Postgres table whose rows are an index's documents (one row, one document, same id). */
export type IndexedTable = typeof images | typeof comments | typeof posts | typeof galleries | typeof tags | typeof filters;

export interface IndexDefinition {
  name: IndexName;
  mapping: IndexMapping;
  /** Query fields of the search language for this index. */
  fields: FieldSet;
  table: IndexedTable;
}
