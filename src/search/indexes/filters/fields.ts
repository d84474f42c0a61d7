/** Query fields of the `filters` index (reference §2.7). */
import { customField, defineFieldSet, field, fieldsOf, myTransform, type FieldSet } from '../../../../grammar/index.js';

export const filterFields: FieldSet = defineFieldSet('filters', field('name', 'literal'), [
  // everyone
  ...fieldsOf('int', ['id', 'spoilered_count', 'hidden_count']),
  field('user_id', 'numeric'),
  field('created_at', 'date'),
  field('description', 'ngram'),
  ...fieldsOf('literal', ['name', 'creator']),
  ...fieldsOf('bool', ['public', 'system']),
  // users
  customField('my', myTransform({ filters: 'user_id' }), 'user'),
]);
