import { tags } from '../../../db/schema/index.js';
import type { IndexDefinition } from '../definition.js';
import { loadTagDocuments } from './document.js';
import { tagFields } from './fields.js';
import { tagsMapping } from './mapping.js';

/** The `tags` index: mapping, query fields and document builder (reference §2). */
export const tagsIndex: IndexDefinition = {
  name: 'tags',
  mapping: tagsMapping,
  fields: tagFields,
  loadDocuments: loadTagDocuments,
  table: tags,
};
