import { posts } from '../../../db/schema/index.js';
import type { IndexDefinition } from '../definition.js';
import { postFields } from './fields.js';
import { postsMapping } from './mapping.js';

/** The `posts` index: mapping and query fields (reference §2). */
export const postsIndex: IndexDefinition = {
  name: 'posts',
  mapping: postsMapping,
  fields: postFields,
  table: posts,
};
