import { filters } from '../../../db/schema/index.js';
import type { IndexDefinition } from '../definition.js';
import { loadFilterDocuments } from './document.js';
import { filterFields } from './fields.js';
import { filtersMapping } from './mapping.js';

/** The `filters` index: mapping, query fields and document builder (reference §2). */
export const filtersIndex: IndexDefinition = {
  name: 'filters',
  mapping: filtersMapping,
  fields: filterFields,
  loadDocuments: loadFilterDocuments,
  table: filters,
};
