import { filters } from '../../../db/schema/index.js';
import type { IndexDefinition } from '../definition.js';
import { filterFields } from './fields.js';
import { filtersMapping } from './mapping.js';

/** The `filters` index: mapping and query fields (reference §2). */
export const filtersIndex: IndexDefinition = {
  name: 'filters',
  mapping: filtersMapping,
  fields: filterFields,
  table: filters,
};
