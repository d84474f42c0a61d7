/**
 * Query fields of the `galleries` index (reference §2.5). The default field is the exact,
 * lowercased title. `thumbnail_id` and `spoiler_warning` are accepted as in the reference but
 * are not indexed, so they never match.
 */
import { customField, defineFieldSet, field, fieldsOf, myTransform, type FieldSet } from '../../../../grammar/index.js';

const mod = { minRole: 'moderator' } as const;

export const galleryFields: FieldSet = defineFieldSet('galleries', field('title', 'literal'), [
  // everyone
  ...fieldsOf('int', ['id', 'image_count', 'subscriber_count']),
  field('user_id', 'numeric', { target: 'creator_id' }),
  ...fieldsOf('numeric', ['image_ids', 'thumbnail_id']),
  field('title', 'literal'),
  field('user', 'literal', { target: 'creator' }),
  ...fieldsOf('date', ['created_at', 'updated_at']),
  ...fieldsOf('ngram', ['description', 'spoiler_warning']),
  // users
  customField('my', myTransform({ galleries: 'true_creator_id' }), 'user'),
  // moderators
  field('true_creator_id', 'numeric', mod),
  field('true_creator', 'literal', mod),
  field('anonymous', 'bool', mod),
]);
