/** Query fields of the `posts` (forum posts) index (reference §2.4). */
import { customField, defineFieldSet, field, fieldsOf, myTransform, type FieldSet } from '../../../../grammar/index.js';

const mod = { minRole: 'moderator' } as const;

export const postFields: FieldSet = defineFieldSet('posts', field('body', 'ngram'), [
  // everyone
  ...fieldsOf('int', ['id', 'topic_position']),
  ...fieldsOf('numeric', ['author_id', 'forum_id', 'topic_id']),
  ...fieldsOf('date', ['created_at', 'updated_at']),
  ...fieldsOf('literal', ['author', 'forum']),
  ...fieldsOf('ngram', ['body', 'subject']),
  // users
  customField('my', myTransform({ posts: 'true_author_id' }), 'user'),
  // moderators
  ...fieldsOf('numeric', ['true_author_id', 'deleted_by_user_id'], mod),
  ...fieldsOf('literal', ['true_author', 'fingerprint', 'deleted_by_user'], mod),
  field('deletion_reason', 'ngram', mod),
  field('ip', 'ip', mod),
  ...fieldsOf('bool', ['anonymous', 'destroyed_content'], mod),
  field('deleted', 'bool', { target: 'hidden_from_users', ...mod }),
]);
