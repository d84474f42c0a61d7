/**
 * The registry of search indices, the only one: one definition per index (mapping, query fields,
 * source table) and the query fields by index the compiler is given. The documents of each index
 * are built from its rows by the search context (`src/contexts/search/documents/`), which reads
 * them: this folder imports no context.
 */
import type { FieldSet } from '../../../grammar/index.js';
import type { IndexSpec } from '../engine.js';
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
