import { comments } from '../../../db/schema/index.js';
import type { IndexDefinition } from '../definition.js';
import { loadCommentDocuments } from './document.js';
import { commentFields } from './fields.js';
import { commentsMapping } from './mapping.js';

/** The `comments` index: mapping, query fields and document builder (reference §2). */
export const commentsIndex: IndexDefinition = {
  name: 'comments',
  mapping: commentsMapping,
  fields: commentFields,
  loadDocuments: loadCommentDocuments,
  table: comments,
};
