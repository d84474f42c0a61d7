/** Query fields of the `comments` index (reference §2.3). */
import { cleanTagName, customField, defineFieldSet, field, fieldsOf, myTransform, type FieldSet } from '../../../../grammar/index.js';

const mod = { minRole: 'moderator' } as const;

export const commentFields: FieldSet = defineFieldSet('comments', field('body', 'ngram'), [
  // everyone
  field('id', 'int'),
  ...fieldsOf('numeric', ['author_id', 'image_id']),
  ...fieldsOf('date', ['created_at', 'updated_at']),
  ...fieldsOf('literal', ['author', 'image.tags']),
  field('body', 'ngram'),
  // users
  customField('my', myTransform({ comments: 'true_author_id' }), 'user'),
  // moderators
  ...fieldsOf('numeric', ['true_author_id', 'deleted_by_user_id'], mod),
  ...fieldsOf('literal', ['true_author', 'fingerprint', 'deleted_by_user'], mod),
  field('image.tags', 'literal', { normalize: cleanTagName, ...mod }),
  field('deletion_reason', 'ngram', mod),
  field('ip', 'ip', mod),
  ...fieldsOf('bool', ['anonymous', 'approved', 'image.approved'], mod),
  field('deleted', 'bool', { target: 'hidden_from_users', ...mod }),
  field('image.deleted', 'bool', { target: 'image.hidden_from_users', ...mod }),
]);
