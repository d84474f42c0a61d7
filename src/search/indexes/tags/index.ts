import { tags } from '../../../db/schema/index.js';
import type { IndexDefinition } from '../definition.js';
import { tagFields } from './fields.js';
import { tagsMapping } from './mapping.js';

/** The `tags` index: mapping and query fields (reference §2). */
export const tagsIndex: IndexDefinition = {
  name: 'tags',
  mapping: tagsMapping,
  fields: tagFields,
  table: tags,
};
