import { comments } from '../../../db/schema/index.js';
import type { IndexDefinition } from '../definition.js';
import { commentFields } from './fields.js';
import { commentsMapping } from './mapping.js';

/** The `comments` index: mapping and query fields (reference §2). */
export const commentsIndex: IndexDefinition = {
  name: 'comments',
  mapping: commentsMapping,
  fields: commentFields,
  table: comments,
};
