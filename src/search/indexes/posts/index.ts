import { posts } from '../../../db/schema/index.js';
import type { IndexDefinition } from '../definition.js';
import { loadPostDocuments } from './document.js';
import { postFields } from './fields.js';
import { postsMapping } from './mapping.js';

/** The `posts` index: mapping, query fields and document builder (reference §2). */
export const postsIndex: IndexDefinition = {
  name: 'posts',
  mapping: postsMapping,
  fields: postFields,
  loadDocuments: loadPostDocuments,
  table: posts,
};
