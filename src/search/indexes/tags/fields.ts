/** Query fields of the `tags` index (reference §2.6): the same for every role, no `my:`. */
import { defineFieldSet, field, fieldsOf, type FieldSet } from '../../../../grammar/index.js';

export const tagFields: FieldSet = defineFieldSet('tags', field('name', 'literal'), [
  ...fieldsOf('int', ['id', 'images']),
  ...fieldsOf('literal', ['name', 'slug', 'name_in_namespace', 'namespace', 'aliases', 'category', 'analyzed_name']),
  field('implies', 'literal', { target: 'implied_tags' }),
  field('implied_by', 'literal', { target: 'implied_by_tags' }),
  field('alias_of', 'literal', { target: 'aliased_tag' }),
  field('aliased', 'bool'),
  ...fieldsOf('ngram', ['description', 'short_description']),
]);
