/**
 * The document and mapping the evaluator tests query, and their checks: each query is evaluated
 * with the mapping and without it, and both answers are compared with the expected one.
 */
import { expect } from 'vitest';
import { type Query, evaluate, type Doc, type IndexMapping } from '../../grammar/index.js';

/** Images mapping, as in Philomena's images index (a subset), plus an object and a multi-field. */
export const mapping: IndexMapping = {
  dynamic: false,
  properties: {
    id: { type: 'integer' },
    score: { type: 'integer' },
    tag_count: { type: 'integer' },
    width: { type: 'integer' },
    aspect_ratio: { type: 'float' },
    wilson_score: { type: 'float' },
    created_at: { type: 'date' },
    first_seen_at: { type: 'date' },
    tags: { type: 'keyword' },
    tag_ids: { type: 'keyword' },
    uploader_id: { type: 'keyword' },
    file_name: { type: 'keyword' },
    source_url: { type: 'keyword' },
    animated: { type: 'boolean' },
    hidden_from_users: { type: 'boolean' },
    approved: { type: 'boolean' },
    description: { type: 'text', analyzer: 'snowball' },
    ip: { type: 'ip' },
    galleries: { type: 'nested', properties: { id: { type: 'integer' }, position: { type: 'integer' } } },
    image: { type: 'object', properties: { tags: { type: 'keyword' }, approved: { type: 'boolean' } } },
    analyzed_name: { type: 'text', analyzer: 'standard', fields: { nlp: { type: 'text', analyzer: 'snowball' } } },
  },
};

export const image: Doc = {
  id: 1001,
  score: 150,
  tag_count: 250,
  width: 1920,
  aspect_ratio: 1.7777777777777777,
  wilson_score: 0.1,
  created_at: '2020-01-01T00:00:00Z',
  first_seen_at: '2020-01-01T12:30:00.000Z',
  tags: ['safe', 'solo', 'pony', 'rainbow dash', 'artist:somepony', 'blue_*'],
  tag_ids: [1, 2, 3, 40],
  uploader_id: 7,
  file_name: 'Dash.PNG',
  source_url: ['https://example.com/a'],
  animated: false,
  hidden_from_users: false,
  approved: true,
  description: 'Rainbow Dash is Running fast over the clouds. The PONIES are watching!',
  ip: '192.168.1.77',
  galleries: [
    { id: 3, position: 1 },
    { id: 9, position: 20 },
  ],
  image: { tags: ['a', 'b'], approved: true },
  analyzed_name: 'Running Ponies',
  null_field: null,
  empty_list: [],
  list_of_null: [null],
  empty_string: '',
};

export const NOW = Date.UTC(2024, 5, 15, 13, 45, 30, 123); // Saturday 2024-06-15T13:45:30.123Z
export const now = () => NOW;

/** Evaluates with the mapping and without it; both must agree unless `withoutMapping` is given. */
export function check(query: unknown, doc: Doc, expected: boolean, withoutMapping: boolean = expected): void {
  expect(evaluate(query as Query, doc, mapping, { now }), `with mapping: ${JSON.stringify(query)}`).toBe(expected);
  expect(evaluate(query as Query, doc, undefined, { now }), `without mapping: ${JSON.stringify(query)}`).toBe(withoutMapping);
}
export const hit = (query: unknown, doc: Doc = image) => check(query, doc, true);
export const miss = (query: unknown, doc: Doc = image) => check(query, doc, false);
export const T = (field: string, value: unknown) => ({ term: { [field]: value } });
