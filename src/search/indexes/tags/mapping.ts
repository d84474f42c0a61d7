import type { FieldMapping, IndexMapping } from '../../mapping.js';

const keyword: FieldMapping = { type: 'keyword' };
const integer: FieldMapping = { type: 'integer' };
const text: FieldMapping = { type: 'text', analyzer: 'snowball' };

/**
 * The custom analyzer Philomena's tags index defines in its settings (`analysis`) for
 * `analyzed_name.nlp`. Neither `IndexSpec` (no settings) nor the embedded analyzers know it yet,
 * so the mapping below names the built-in `snowball` for that sub-field (no query field searches
 * it); once both can carry it, name `tag_snowball` there and pass these settings.
 */
export const tagsAnalysis = {
  analyzer: {
    tag_snowball: {
      tokenizer: 'letter',
      filter: ['asciifolding', 'snowball'],
    },
  },
} as const;

/** Philomena's `Tags.SearchIndex.mapping` (reference §2.6). */
export const tagsMapping: IndexMapping = {
  dynamic: false,
  properties: {
    id: integer,
    images: integer,
    slug: keyword,
    name: keyword,
    name_in_namespace: keyword,
    namespace: keyword,
    aliased_tag: keyword,
    aliases: keyword,
    implied_tags: keyword,
    implied_by_tags: keyword,
    category: keyword,
    aliased: { type: 'boolean' },
    analyzed_name: {
      type: 'text',
      analyzer: 'standard',
      fields: {
        nlp: { type: 'text', analyzer: 'snowball' },
        ngram: keyword,
      },
    },
    description: text,
    short_description: text,
  },
};
