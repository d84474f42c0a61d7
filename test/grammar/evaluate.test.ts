import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Query, compileEvaluator, evaluate, minimumShouldMatch, type Doc, type IndexMapping } from '../../grammar/index.js';

/** Images mapping, as in Philomena's images index (a subset), plus an object and a multi-field. */
const mapping: IndexMapping = {
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

const image: Doc = {
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

const NOW = Date.UTC(2024, 5, 15, 13, 45, 30, 123); // Saturday 2024-06-15T13:45:30.123Z
const now = () => NOW;

/** Evaluates with the mapping and without it; both must agree unless `withoutMapping` is given. */
function check(query: unknown, doc: Doc, expected: boolean, withoutMapping: boolean = expected): void {
  expect(evaluate(query as Query, doc, mapping, { now }), `with mapping: ${JSON.stringify(query)}`).toBe(expected);
  expect(evaluate(query as Query, doc, undefined, { now }), `without mapping: ${JSON.stringify(query)}`).toBe(withoutMapping);
}
const hit = (query: unknown, doc: Doc = image) => check(query, doc, true);
const miss = (query: unknown, doc: Doc = image) => check(query, doc, false);
const T = (field: string, value: unknown) => ({ term: { [field]: value } });

describe('reference evaluator defects are fixed', () => {
  it('AND (a bool with only must) matches', () => {
    hit({ bool: { must: [T('tags', 'safe'), T('tags', 'solo')] } });
  });

  it('NOT (a bool with only must_not, as a single object) matches', () => {
    hit({ bool: { must_not: T('tags', 'nope') } });
    hit({ bool: { must_not: { range: { tag_count: { lt: 200 } } } } });
  });

  it('AND and NOT in a complex filter match', () => {
    hit({
      bool: {
        should: [
          { bool: { must: [T('tags', 'safe'), { bool: { must_not: T('tags', 'explicit') } }] } },
          T('tags', 'never'),
        ],
      },
    });
  });

  it('tags is an array: a term matches any one tag', () => {
    hit(T('tags', 'safe'));
    hit(T('tags', 'rainbow dash'));
    miss(T('tags', 'safe, solo'));
  });

  it('dates compare as instants: 2020-01-01 is on or after 2019-06-15', () => {
    hit({ range: { created_at: { gte: '2019-06-15' } } });
    hit({ range: { created_at: { gte: '2019-06-15T00:00:00Z' } } });
    miss({ range: { created_at: { lt: '2019-06-15' } } });
  });

  it('match_phrase is case-insensitive through analysis', () => {
    hit({ match_phrase: { description: 'rainbow dash' } });
    hit({ match_phrase: { description: 'RAINBOW DASH' } });
  });

  it('? is exactly one character', () => {
    hit({ wildcard: { tags: 'p?ny' } });
    miss({ wildcard: { tags: 'p?ony' } });
    miss({ wildcard: { tags: 'sol?o' } });
  });

  it('nested queries work (gallery_id)', () => {
    hit({ nested: { path: 'galleries', query: T('galleries.id', 3) } });
  });
});

describe('bool', () => {
  it('must and filter require every clause, as arrays or single objects', () => {
    hit({ bool: { must: T('tags', 'safe'), filter: T('tags', 'solo') } });
    hit({ bool: { filter: [T('tags', 'safe'), { range: { score: { gte: 100 } } }] } });
    miss({ bool: { must: [T('tags', 'safe'), T('tags', 'nope')] } });
    miss({ bool: { filter: [T('tags', 'safe')], must: [T('tags', 'nope')] } });
  });

  it('must_not excludes on any clause', () => {
    miss({ bool: { must_not: [T('tags', 'nope'), T('tags', 'safe')] } });
    hit({ bool: { must_not: [T('tags', 'nope'), T('tags', 'nada')] } });
  });

  it('should alone needs at least one match', () => {
    hit({ bool: { should: [T('tags', 'nope'), T('tags', 'safe')] } });
    miss({ bool: { should: [T('tags', 'nope'), T('tags', 'nada')] } });
    hit({ bool: { should: T('tags', 'safe') } });
  });

  it('should is optional next to must or filter', () => {
    hit({ bool: { must: T('tags', 'safe'), should: T('tags', 'nope') } });
    hit({ bool: { filter: T('tags', 'safe'), should: [T('tags', 'nope')] } });
    miss({ bool: { must: T('tags', 'nope'), should: T('tags', 'safe') } });
  });

  it('should alone next to must_not still needs a match', () => {
    miss({ bool: { should: T('tags', 'nope'), must_not: T('tags', 'nada') } });
    hit({ bool: { should: T('tags', 'safe'), must_not: T('tags', 'nada') } });
  });

  it('minimum_should_match counts should clauses', () => {
    const should = [T('tags', 'safe'), T('tags', 'solo'), T('tags', 'nope'), T('tags', 'nada')];
    hit({ bool: { should, minimum_should_match: 2 } });
    miss({ bool: { should, minimum_should_match: 3 } });
    hit({ bool: { should, minimum_should_match: '50%' } });
    miss({ bool: { should, minimum_should_match: '75%' } });
    hit({ bool: { should, minimum_should_match: -2 } });
    miss({ bool: { should, minimum_should_match: -1 } });
    miss({ bool: { should, minimum_should_match: 5 } });
    hit({ bool: { must: T('tags', 'safe'), should: [T('tags', 'nope')], minimum_should_match: 0 } });
    miss({ bool: { must: T('tags', 'safe'), should: [T('tags', 'nope')], minimum_should_match: 1 } });
  });

  it('an empty bool matches everything', () => {
    hit({ bool: {} });
    hit({ bool: { must: [], should: [], must_not: [] } });
  });

  it('rejects unknown clauses', () => {
    expect(() => compileEvaluator({ bool: { mustnot: [] } } as unknown as Query)).toThrow(/mustnot/);
  });
});

describe('minimumShouldMatch', () => {
  it('follows OpenSearch arithmetic', () => {
    expect(minimumShouldMatch(4, 2)).toBe(2);
    expect(minimumShouldMatch(4, '-1')).toBe(3);
    expect(minimumShouldMatch(4, '75%')).toBe(3);
    expect(minimumShouldMatch(3, '75%')).toBe(2);
    expect(minimumShouldMatch(3, '-25%')).toBe(3);
    expect(minimumShouldMatch(4, '-25%')).toBe(3);
    expect(minimumShouldMatch(2, '3<90%')).toBe(2);
    expect(minimumShouldMatch(10, '3<90%')).toBe(9);
    expect(minimumShouldMatch(10, '2<-25% 9<-3')).toBe(7);
    expect(minimumShouldMatch(5, '2<-25% 9<-3')).toBe(4);
    expect(minimumShouldMatch(2, -5)).toBe(0);
  });
});

describe('term', () => {
  it('accepts the short and the long form', () => {
    hit(T('tags', 'safe'));
    hit({ term: { tags: { value: 'safe' } } });
    hit({ term: { tags: { value: 'safe', boost: 2, _name: 'x' } } });
  });

  it('is case-sensitive on keywords unless case_insensitive', () => {
    miss(T('tags', 'SAFE'));
    hit({ term: { tags: { value: 'SAFE', case_insensitive: true } } });
    hit({ term: { file_name: { value: 'dash.png', case_insensitive: true } } });
    miss(T('file_name', 'dash.png'));
  });

  it('compares keywords as strings: numbers match numeric strings both ways', () => {
    hit(T('tag_ids', 40));
    hit(T('tag_ids', '40'));
    hit(T('uploader_id', '7'));
    check(T('tag_ids', 40), { tag_ids: ['1', '40'] }, true);
    // as a keyword, '040' is not '40'; dynamically mapped numbers would parse it as 40
    check(T('tag_ids', '040'), image, false, true);
    miss(T('tag_ids', 4));
  });

  it('matches booleans given as true/false or "true"/"false"', () => {
    hit(T('approved', true));
    hit(T('approved', 'true'));
    hit(T('animated', false));
    hit(T('animated', 'false'));
    miss(T('approved', false));
    check(T('approved', true), { approved: 'true' }, true);
  });

  it('compares numeric fields numerically', () => {
    hit(T('score', 150));
    hit(T('score', '150'));
    hit(T('score', 150.0));
    miss(T('score', 151));
    check(T('score', 150), { score: '150' }, true);
  });

  it('never matches a fractional value on an integer field', () => {
    check(T('score', 150.5), { score: 150 }, false);
    // an integer field indexes a fractional source value truncated
    check(T('score', 150), { score: 150.9 }, true, false);
  });

  it('compares float fields in single precision', () => {
    hit(T('wilson_score', 0.1));
    check(T('aspect_ratio', 1.7777778), image, true, false);
  });

  it('never matches a missing or null field, so must_not does', () => {
    miss(T('missing', 'x'));
    miss(T('null_field', 'x'));
    miss(T('list_of_null', 'x'));
    hit({ bool: { must_not: T('missing', 'x') } });
    hit({ bool: { must_not: T('null_field', 'x') } });
  });

  it('reaches into objects with dotted paths', () => {
    hit(T('image.tags', 'b'));
    miss(T('image.tags', 'c'));
    hit(T('image.approved', true));
    check(T('image.tags', 'b'), { image: [{ tags: ['a'] }, { tags: ['b'] }] }, true);
    check(T('image.tags', 'b'), { 'image.tags': ['b'] }, true);
  });

  it('on a text field, compares with the analyzed terms', () => {
    check(T('description', 'run'), image, true, false);
    check(T('description', 'Running'), image, false, false);
    check(T('description', 'poni'), image, true, false);
  });

  it('with a mapping, never matches a field the mapping lacks', () => {
    check(T('unmapped', 'x'), { unmapped: 'x' }, false, true);
  });

  it('reads a text sub-field from its parent value with its own analyzer', () => {
    expect(evaluate(T('analyzed_name', 'running') as Query, image, mapping)).toBe(true);
    expect(evaluate(T('analyzed_name.nlp', 'run') as Query, image, mapping)).toBe(true);
    expect(evaluate(T('analyzed_name.nlp', 'running') as Query, image, mapping)).toBe(false);
    expect(evaluate(T('analyzed_name.nope', 'run') as Query, image, mapping)).toBe(false);
  });

  it('rejects arrays, objects and unparsable typed values', () => {
    expect(() => compileEvaluator(T('tags', ['a', 'b']) as Query)).toThrow(/array/);
    expect(() => compileEvaluator(T('score', 'high') as Query, mapping)).toThrow(/number/);
    expect(() => compileEvaluator(T('approved', 'yes') as Query, mapping)).toThrow(/boolean/);
    expect(() => compileEvaluator(T('created_at', 'yesterday') as Query, mapping)).toThrow(/date/);
  });

  it('on a date field, matches the instant (a bare date covers its day)', () => {
    hit(T('created_at', '2020-01-01T00:00:00Z'));
    hit(T('created_at', '2020-01-01T01:00:00+01:00'));
    hit(T('created_at', '2020-01-01'));
    hit(T('first_seen_at', '2020-01-01'));
    miss(T('created_at', '2020-01-02'));
    hit(T('created_at', Date.UTC(2020, 0, 1)));
    hit(T('created_at', '2020-01-01'), { created_at: new Date('2020-01-01T08:00:00Z') });
  });
});

describe('terms', () => {
  it('matches any of the values', () => {
    hit({ terms: { tags: ['nope', 'solo'] } });
    miss({ terms: { tags: ['nope', 'nada'] } });
    hit({ terms: { tag_ids: [99, 40] } });
    hit({ terms: { tag_ids: ['99', '2'] } });
    hit({ terms: { score: [1, 150] } });
    hit({ terms: { approved: [true] } });
    hit({ terms: { tags: ['solo'], boost: 1.5 } });
  });

  it('matches nothing for an empty list', () => {
    miss({ terms: { tags: [] } });
  });

  it('handles long lists', () => {
    const many = Array.from({ length: 100 }, (_, i) => `tag${i}`);
    miss({ terms: { tags: many } });
    hit({ terms: { tags: [...many, 'pony'] } });
    hit({ terms: { tag_ids: Array.from({ length: 100 }, (_, i) => i + 10) } });
  });

  it('matches on analyzed terms of text fields', () => {
    check({ terms: { description: ['nope', 'cloud'] } }, image, true, false);
  });

  it('rejects terms lookups', () => {
    expect(() => compileEvaluator({ terms: { tags: { index: 'x', id: '1', path: 'tags' } } } as unknown as Query)).toThrow(/lookup/);
  });
});

describe('range', () => {
  it('applies gt, gte, lt and lte on numbers', () => {
    hit({ range: { score: { gte: 150 } } });
    miss({ range: { score: { gt: 150 } } });
    hit({ range: { score: { lte: 150 } } });
    miss({ range: { score: { lt: 150 } } });
    hit({ range: { score: { gt: 100, lt: 200 } } });
    miss({ range: { score: { gt: 200, lt: 100 } } });
    hit({ range: { score: { gte: '149.5' } } });
    hit({ range: { aspect_ratio: { gt: 1.7, lt: 1.8 } } });
  });

  it('supports the legacy from/to form', () => {
    hit({ range: { score: { from: 150, to: 150 } } });
    miss({ range: { score: { from: 150, to: 200, include_lower: false } } });
  });

  it('matches any element of an array', () => {
    check({ range: { score: { gt: 10 } } }, { score: [1, 2, 30] }, true);
    check({ range: { score: { gt: 100 } } }, { score: [1, 2, 30] }, false);
  });

  it('compares dates as instants whatever their source form', () => {
    const q = { range: { created_at: { gte: '2019-12-31T23:00:00-01:00', lt: '2020-01-01T00:00:01Z' } } };
    hit(q);
    hit(q, { created_at: new Date('2020-01-01T00:00:00Z') });
    check(q, { created_at: Date.UTC(2020, 0, 1) }, true);
    hit(q, { created_at: '2020-01-01T01:00:00+01:00' });
    hit(q, { created_at: '2020-01-01T00:00:00.000Z' });
    miss(q, { created_at: '2020-01-01T00:00:01.000Z' });
    miss(q, { created_at: '2019-12-31T23:59:59.999Z' });
  });

  it('reads dates without an offset as UTC', () => {
    check({ range: { created_at: { gte: '2020-01-01T00:00:00' } } }, { created_at: '2020-01-01T00:00:00' }, true);
    check({ range: { created_at: { lt: '2020-01-01T00:00:00' } } }, { created_at: '2020-01-01T00:00:00' }, false);
  });

  it('rounds bare dates like OpenSearch: lte and gt cover the whole day', () => {
    const doc = { created_at: '2020-01-01T18:00:00Z' };
    check({ range: { created_at: { lte: '2020-01-01' } } }, doc, true);
    check({ range: { created_at: { gt: '2020-01-01' } } }, doc, false);
    check({ range: { created_at: { gte: '2020-01-01' } } }, doc, true);
    check({ range: { created_at: { lt: '2020-01-01' } } }, doc, false);
  });

  it('evaluates date math relative to now, rounding per operator', () => {
    // now = 2024-06-15T13:45:30.123Z
    const at = (iso: string) => ({ created_at: iso });
    check({ range: { created_at: { gte: 'now-3d/d' } } }, at('2024-06-12T00:00:00Z'), true);
    check({ range: { created_at: { gte: 'now-3d/d' } } }, at('2024-06-11T23:59:59.999Z'), false);
    check({ range: { created_at: { gt: 'now-3d/d' } } }, at('2024-06-12T23:59:59.999Z'), false);
    check({ range: { created_at: { gt: 'now-3d/d' } } }, at('2024-06-13T00:00:00Z'), true);
    check({ range: { created_at: { lt: 'now/d' } } }, at('2024-06-14T23:59:59.999Z'), true);
    check({ range: { created_at: { lt: 'now/d' } } }, at('2024-06-15T00:00:00Z'), false);
    check({ range: { created_at: { lte: 'now/d' } } }, at('2024-06-15T23:59:59.999Z'), true);
    check({ range: { created_at: { lte: 'now/d' } } }, at('2024-06-16T00:00:00Z'), false);
    check({ range: { created_at: { gte: 'now-1h' } } }, at('2024-06-15T12:45:30.123Z'), true);
    check({ range: { created_at: { gte: 'now-1h' } } }, at('2024-06-15T12:45:30.122Z'), false);
    check({ range: { created_at: { gte: 'now/M' } } }, at('2024-06-01T00:00:00Z'), true);
    check({ range: { created_at: { gte: 'now/w' } } }, at('2024-06-10T00:00:00Z'), true); // Monday
    check({ range: { created_at: { gte: 'now/w' } } }, at('2024-06-09T23:59:59Z'), false);
    check({ range: { created_at: { gte: 'now-1y/y' } } }, at('2023-01-01T00:00:00Z'), true);
    check({ range: { created_at: { gte: 'now+1d' } } }, at('2024-06-15T13:45:30Z'), false);
    check({ range: { created_at: { gte: '2024-01-31||+1M' } } }, at('2024-02-29T00:00:00Z'), true);
    check({ range: { created_at: { gt: '2024-01-31||+1M' } } }, at('2024-02-29T00:00:00Z'), false);
  });

  it('re-reads the clock for now-relative bounds', () => {
    let clock = NOW;
    const fn = compileEvaluator({ range: { created_at: { gte: 'now-1d' } } } as Query, mapping, { now: () => clock });
    const doc = { created_at: new Date(NOW - 12 * 3_600_000) };
    expect(fn(doc)).toBe(true);
    clock = NOW + 24 * 3_600_000;
    expect(fn(doc)).toBe(false);
  });

  it('supports time_zone for strings without an offset and for rounding', () => {
    const doc = { created_at: '2020-01-01T00:30:00Z' };
    // 01:00 at +01:00 is 00:00Z; at -01:00 it is 02:00Z
    check({ range: { created_at: { gte: '2020-01-01T01:00:00', time_zone: '+01:00' } } }, doc, true);
    check({ range: { created_at: { gte: '2020-01-01T00:45:00', time_zone: '+01:00' } } }, doc, true);
    check({ range: { created_at: { gte: '2020-01-01T01:45:00', time_zone: '+01:00' } } }, doc, false);
    check({ range: { created_at: { gte: '2020-01-01T01:00:00', time_zone: '-01:00' } } }, doc, false);
    // an explicit offset wins over time_zone
    check({ range: { created_at: { gte: '2020-01-01T00:45:00Z', time_zone: '-05:00' } } }, doc, false);
    // rounding happens on local days: now/d at +01:00 on 2024-06-15T13:45Z starts at 2024-06-14T23:00Z
    check({ range: { created_at: { gte: 'now/d', time_zone: '+01:00' } } }, { created_at: '2024-06-14T23:00:00Z' }, true);
    check({ range: { created_at: { gte: 'now/d', time_zone: '+01:00' } } }, { created_at: '2024-06-14T22:59:59Z' }, false);
    check({ range: { created_at: { lt: '2020-01-01', time_zone: '+01:00' } } }, doc, false);
    check({ range: { created_at: { lt: '2020-01-01', time_zone: '-01:00' } } }, doc, true);
    expect(() => compileEvaluator({ range: { created_at: { gte: 'now', time_zone: 'Mars/Olympus' } } } as Query, mapping)).toThrow(/time_zone/);
  });

  it('supports epoch_second and epoch millis', () => {
    check({ range: { created_at: { gte: 1577836800, format: 'epoch_second' } } }, image, true, true);
    check({ range: { created_at: { gte: 1577836800001 } } }, image, false, false);
    check({ range: { created_at: { gte: 1577836800000 } } }, image, true, true);
  });

  it('orders keyword ranges by code point', () => {
    check({ range: { tags: { gte: 'rainbow', lt: 'rainbox' } } }, image, true);
    check({ range: { tags: { gt: 'zzz' } } }, image, false);
  });

  it('orders ip ranges by address', () => {
    check({ range: { ip: { gte: '192.168.1.0', lte: '192.168.1.255' } } }, image, true, false);
    check({ range: { ip: { gt: '192.168.1.77' } } }, image, false, false);
  });

  it('rejects unknown operators', () => {
    expect(() => compileEvaluator({ range: { score: { gtee: 5 } } } as unknown as Query)).toThrow(/gtee/);
  });
});

describe('wildcard and prefix', () => {
  it('matches keyword patterns', () => {
    hit({ wildcard: { tags: 'rain*' } });
    hit({ wildcard: { tags: '*dash' } });
    hit({ wildcard: { tags: '*bow*' } });
    hit({ wildcard: { tags: 'artist:*' } });
    hit({ wildcard: { tags: { value: 's?f*' } } });
    hit({ wildcard: { tags: { wildcard: 's?f*' } } });
    miss({ wildcard: { tags: 'rain' } });
  });

  it('honours escapes', () => {
    hit({ wildcard: { tags: 'blue_\\*' } });
    miss({ wildcard: { tags: 'blu\\*' } });
  });

  it('is case-sensitive unless case_insensitive', () => {
    miss({ wildcard: { file_name: 'dash.*' } });
    hit({ wildcard: { file_name: { value: 'dash.*', case_insensitive: true } } });
    hit({ prefix: { file_name: { value: 'dash', case_insensitive: true } } });
    miss({ prefix: { file_name: 'dash' } });
  });

  it('prefix matches the start of a value', () => {
    hit({ prefix: { tags: 'rainbow' } });
    hit({ prefix: { tags: { value: 'artist:' } } });
    miss({ prefix: { tags: 'dash' } });
  });

  it('matches keyword ids stored as numbers', () => {
    hit({ wildcard: { tag_ids: '4*' } });
    hit({ prefix: { uploader_id: '7' } });
  });

  it('matches analyzed terms on text fields', () => {
    check({ wildcard: { description: 'cloud*' } }, image, true, false);
    check({ prefix: { description: 'rain' } }, image, true, false);
  });

  it('rejects numeric fields', () => {
    expect(() => compileEvaluator({ prefix: { score: '1' } } as Query, mapping)).toThrow(/keyword and text/);
  });
});

describe('fuzzy', () => {
  it('counts edits', () => {
    hit({ fuzzy: { tags: { value: 'ponny', fuzziness: 1 } } });
    miss({ fuzzy: { tags: { value: 'pooony', fuzziness: 1 } } });
    hit({ fuzzy: { tags: { value: 'pooony', fuzziness: 2 } } });
    hit({ fuzzy: { tags: { value: 'soloo' } } }); // AUTO: 5 chars → 1 edit
    miss({ fuzzy: { tags: { value: 'sl' } } }); // AUTO: 2 chars → exact only
  });

  it('counts a transposition as one edit unless disabled', () => {
    hit({ fuzzy: { tags: { value: 'opny', fuzziness: 1 } } });
    miss({ fuzzy: { tags: { value: 'opny', fuzziness: 1, transpositions: false } } });
  });

  it('truncates fuzziness below 1 to no edit, as OpenSearch 2.x does', () => {
    miss({ fuzzy: { tags: { value: 'rainbow dosh', fuzziness: 0.8 } } });
    miss({ fuzzy: { tags: { value: 'pont', fuzziness: 0.5 } } });
    hit({ fuzzy: { tags: { value: 'pony', fuzziness: 0.8 } } });
  });

  it('honours prefix_length', () => {
    hit({ fuzzy: { tags: { value: 'pont', fuzziness: 1, prefix_length: 3 } } });
    miss({ fuzzy: { tags: { value: 'bony', fuzziness: 1, prefix_length: 1 } } });
  });
});

describe('match_phrase', () => {
  it('matches analyzed terms in order and adjacent', () => {
    hit({ match_phrase: { description: 'Rainbow Dash' } });
    hit({ match_phrase: { description: 'running fast' } });
    miss({ match_phrase: { description: 'dash rainbow' } });
    miss({ match_phrase: { description: 'rainbow fast' } });
  });

  it('stems both sides', () => {
    hit({ match_phrase: { description: 'the pony is watching' } });
    hit({ match_phrase: { description: 'ponies watch' } }, { description: 'Ponies watched the sky' });
  });

  it('keeps the gap of a removed stop word, as OpenSearch positions do', () => {
    hit({ match_phrase: { description: 'Dash is Running' } });
    hit({ match_phrase: { description: 'Dash a Running' } });
    miss({ match_phrase: { description: 'dash running' } });
  });

  it('honours slop', () => {
    hit({ match_phrase: { description: { query: 'dash running', slop: 1 } } });
    hit({ match_phrase: { description: { query: 'rainbow fast', slop: 3 } } });
    miss({ match_phrase: { description: { query: 'rainbow fast', slop: 2 } } });
    miss({ match_phrase: { description: { query: 'dash rainbow', slop: 1 } } });
    hit({ match_phrase: { description: { query: 'dash rainbow', slop: 2 } } });
  });

  it('does not span the values of a multi-valued field', () => {
    const doc = { description: ['a rainbow', 'dash away'] };
    check({ match_phrase: { description: 'rainbow dash' } }, doc, false);
    check({ match_phrase: { description: 'dash away' } }, doc, true);
  });

  it('matches a single-term phrase anywhere', () => {
    hit({ match_phrase: { description: 'CLOUD' } });
  });

  it('matches nothing for a stop-words-only phrase unless zero_terms_query is all', () => {
    miss({ match_phrase: { description: 'the' } });
    hit({ match_phrase: { description: { query: 'the', zero_terms_query: 'all' } } });
  });

  it('is an exact term on keyword fields', () => {
    check({ match_phrase: { tags: 'rainbow dash' } }, image, true, true);
    // a dynamically mapped string is text, so without a mapping the phrase is analyzed
    check({ match_phrase: { tags: 'Rainbow Dash' } }, image, false, true);
  });

  it('never matches a missing field', () => {
    miss({ match_phrase: { description: 'anything' } }, { id: 1 });
  });
});

describe('match', () => {
  it('matches any analyzed term by default', () => {
    hit({ match: { description: 'dragons clouds' } });
    miss({ match: { description: 'dragons griffons' } });
  });

  it('operator and requires every term', () => {
    hit({ match: { description: { query: 'clouds ponies', operator: 'and' } } });
    miss({ match: { description: { query: 'clouds dragons', operator: 'and' } } });
  });

  it('honours minimum_should_match', () => {
    hit({ match: { description: { query: 'clouds ponies dragons', minimum_should_match: 2 } } });
    miss({ match: { description: { query: 'clouds dragons griffons', minimum_should_match: 2 } } });
  });

  it('supports fuzziness', () => {
    hit({ match: { description: { query: 'clowds', fuzziness: 1 } } });
    miss({ match: { description: { query: 'clowds' } } });
  });

  it('is an exact term on keyword and numeric fields', () => {
    check({ match: { tags: 'rainbow dash' } }, image, true, true);
    hit({ match: { score: '150' } });
    miss({ match: { score: '15' } });
  });
});

describe('exists', () => {
  it('matches fields with a non-null value', () => {
    hit({ exists: { field: 'tags' } });
    hit({ exists: { field: 'animated' } });
    hit({ exists: { field: 'image.tags' } });
    check({ exists: { field: 'empty_string' } }, image, false, true); // unmapped with a mapping
    check({ exists: { field: 'tags' } }, { tags: '' }, true);
  });

  it('does not match missing, null, empty or all-null fields', () => {
    miss({ exists: { field: 'missing' } });
    check({ exists: { field: 'tags' } }, { tags: null }, false);
    check({ exists: { field: 'tags' } }, { tags: [] }, false);
    check({ exists: { field: 'tags' } }, { tags: [null] }, false);
    hit({ bool: { must_not: { exists: { field: 'missing' } } } });
  });

  it('matches an object field when any of its leaves exists', () => {
    check({ exists: { field: 'image' } }, image, true);
    check({ exists: { field: 'image' } }, { image: { tags: null } }, false);
  });
});

describe('ids, match_all, match_none', () => {
  it('ids matches _id or id as strings', () => {
    hit({ ids: { values: ['1001'] } });
    hit({ ids: { values: [5, 1001] } });
    miss({ ids: { values: ['1'] } });
    check({ ids: { values: ['abc'] } }, { _id: 'abc', id: 1 }, true);
  });

  it('match_all and match_none', () => {
    hit({ match_all: {} });
    miss({ match_none: {} });
    hit({ bool: { must_not: { match_none: {} } } });
  });
});

describe('function_score and constant_score', () => {
  it('function_score evaluates its inner query; no query matches all', () => {
    hit({ function_score: { query: T('tags', 'safe'), boost: 2 } });
    miss({ function_score: { query: T('tags', 'nope') } });
    hit({ function_score: { functions: [{ random_score: { seed: 1, field: 'id' } }], boost_mode: 'replace' } });
  });

  it('constant_score evaluates its filter', () => {
    hit({ constant_score: { filter: T('tags', 'safe'), boost: 1 } });
    miss({ constant_score: { filter: T('tags', 'nope') } });
  });
});

describe('nested', () => {
  it('matches when one nested object matches the whole inner query', () => {
    hit({ nested: { path: 'galleries', query: { bool: { must: [T('galleries.id', 9), { range: { 'galleries.position': { gte: 10 } } }] } } } });
    // id 3 and position 20 belong to different objects
    miss({ nested: { path: 'galleries', query: { bool: { must: [T('galleries.id', 3), { range: { 'galleries.position': { gte: 10 } } }] } } } });
    miss({ nested: { path: 'galleries', query: T('galleries.id', 4) } });
  });

  it('accepts a single nested object and ignores missing ones', () => {
    check({ nested: { path: 'galleries', query: T('galleries.id', 3) } }, { galleries: { id: 3, position: 0 } }, true);
    miss({ nested: { path: 'galleries', query: T('galleries.id', 3) } }, { id: 1 });
  });

  it('inner fields outside the nested path never match', () => {
    miss({ nested: { path: 'galleries', query: T('tags', 'safe') } });
  });

  it('with a mapping, nested fields are invisible outside a nested query', () => {
    check(T('galleries.id', 3), image, false, true);
  });

  it('with a mapping, rejects unmapped or non-nested paths unless ignore_unmapped', () => {
    expect(() => compileEvaluator({ nested: { path: 'nope', query: { match_all: {} } } } as Query, mapping)).toThrow(/nested/);
    expect(() => compileEvaluator({ nested: { path: 'image', query: { match_all: {} } } } as Query, mapping)).toThrow(/not of nested type/);
    expect(evaluate({ nested: { path: 'nope', query: { match_all: {} }, ignore_unmapped: true } } as Query, image, mapping)).toBe(false);
  });

  it('supports nested inside nested', () => {
    const m: IndexMapping = {
      dynamic: false,
      properties: { a: { type: 'nested', properties: { b: { type: 'nested', properties: { c: { type: 'keyword' } } } } } },
    };
    const doc = { a: [{ b: [{ c: 'x' }, { c: 'y' }] }, { b: { c: 'z' } }] };
    const q = { nested: { path: 'a', query: { nested: { path: 'a.b', query: T('a.b.c', 'z') } } } } as Query;
    expect(evaluate(q, doc, m)).toBe(true);
    expect(evaluate(q, doc)).toBe(true);
    const q2 = { nested: { path: 'a', query: { nested: { path: 'a.b', query: T('a.b.c', 'w') } } } } as Query;
    expect(evaluate(q2, doc, m)).toBe(false);
  });
});

describe('ip', () => {
  it('matches CIDR blocks and addresses', () => {
    check(T('ip', '192.168.1.0/24'), image, true, true);
    check(T('ip', '192.168.0.0/16'), image, true, true);
    check(T('ip', '192.168.2.0/24'), image, false, false);
    check(T('ip', '192.168.1.77/32'), image, true, true);
    check(T('ip', '0.0.0.0/0'), image, true, true);
    check(T('ip', '192.168.1.77'), image, true, true);
    check(T('ip', '192.168.1.78'), image, false, false);
  });

  it('handles IPv6, compressed forms and IPv4-mapped addresses', () => {
    const doc = { ip: '2001:db8::1' };
    check(T('ip', '2001:db8::/32'), doc, true, true);
    check(T('ip', '2001:db9::/32'), doc, false, false);
    check(T('ip', '2001:0db8:0000:0000:0000:0000:0000:0001'), doc, true, true);
    check(T('ip', '::ffff:192.168.1.77'), image, true, true);
    check({ terms: { ip: ['10.0.0.0/8', '192.168.1.0/24'] } }, image, true, true);
  });

  it('rejects invalid addresses on ip fields', () => {
    expect(() => compileEvaluator(T('ip', 'not-an-ip') as Query, mapping)).toThrow(/IP/);
    expect(() => compileEvaluator(T('ip', '300.1.1.1') as Query, mapping)).toThrow(/IP/);
    expect(() => compileEvaluator(T('ip', '1.2.3.4/33') as Query, mapping)).toThrow(/IP/);
    expect(() => compileEvaluator(T('ip', '::ffff:192.168.1.0/120') as Query, mapping)).toThrow(/IP/);
  });
});

describe('errors', () => {
  it('names unknown query kinds', () => {
    expect(() => evaluate({ trem: { tags: 'x' } } as unknown as Query, image)).toThrow(/trem/);
    expect(() => evaluate({ query_string: { query: 'x' } } as Query, image)).toThrow(/query_string/);
  });

  it('rejects containers with zero or several kinds', () => {
    expect(() => evaluate({} as Query, image)).toThrow(/exactly one/);
    expect(() => evaluate({ term: { a: 1 }, exists: { field: 'a' } } as unknown as Query, image)).toThrow(/exactly one/);
  });

  it('matches nothing (without throwing) for value queries on object fields', () => {
    check(T('image', 'a'), image, false);
    check({ range: { image: { gte: 'a' } } }, image, false);
    check({ wildcard: { image: 'a*' } }, image, false);
  });

  it('rejects field queries with several fields', () => {
    expect(() => evaluate({ term: { a: 1, b: 2 } } as unknown as Query, image)).toThrow(/exactly one field/);
  });
});

describe('evaluate cache and compileEvaluator', () => {
  it('caches per query object and per mapping', () => {
    const q = T('unmapped', 'x') as Query;
    const doc = { unmapped: 'x' };
    expect(evaluate(q, doc)).toBe(true);
    expect(evaluate(q, doc, mapping)).toBe(false);
    expect(evaluate(q, doc)).toBe(true);
  });

  it('compileEvaluator returns a reusable predicate', () => {
    const fn = compileEvaluator({ bool: { filter: [T('tags', 'safe'), { range: { score: { gte: 100 } } }] } } as Query, mapping);
    expect(fn(image)).toBe(true);
    expect(fn({ ...image, score: 5 })).toBe(false);
    expect(fn({ ...image, tags: 'safe' })).toBe(true);
    expect(fn({})).toBe(false);
  });
});

describe('properties', () => {
  const value = fc.oneof(
    fc.constantFrom('a', 'b', 'A', '1', '2', 'true', ''),
    fc.integer({ min: 0, max: 3 }),
    fc.boolean(),
    fc.constant(null),
  );
  const field = fc.oneof(value, fc.array(value, { maxLength: 4 }));

  it('top-level fast paths agree with the general path on object fields', () => {
    const queries = fc.oneof(
      fc.record({ term: fc.record({ f: fc.constantFrom('a', 'A', '1', 'true', '') }) }),
      fc.record({ term: fc.record({ f: fc.record({ value: fc.constantFrom('a', 1, true), case_insensitive: fc.boolean() }) }) }),
      fc.record({ terms: fc.record({ f: fc.array(fc.constantFrom('a', 'b', 1, 2, true), { maxLength: 3 }) }) }),
      fc.record({ range: fc.record({ f: fc.record({ gte: fc.integer({ min: 0, max: 3 }) }) }) }),
      fc.record({ exists: fc.constant({ field: 'f' }) }),
      fc.record({ wildcard: fc.record({ f: fc.constantFrom('a*', '?', '*') }) }),
    );
    const nestedName = (q: Record<string, Record<string, unknown>>) => {
      const [kind, body] = Object.entries(q)[0] as [string, Record<string, unknown>];
      if (kind === 'exists') return { exists: { field: 'o.f' } };
      return { [kind]: { 'o.f': body.f } };
    };
    const keywordMapping: IndexMapping = {
      dynamic: false,
      properties: { f: { type: 'keyword' }, o: { type: 'object', properties: { f: { type: 'keyword' } } } },
    };
    fc.assert(
      fc.property(queries, field, (q, v) => {
        const top = q as Query;
        const deep = nestedName(q as Record<string, Record<string, unknown>>) as Query;
        for (const m of [undefined, keywordMapping]) {
          let a: boolean | Error;
          let b: boolean | Error;
          try {
            a = evaluate(top, { f: v }, m);
          } catch (e) {
            a = e as Error;
          }
          try {
            b = evaluate(deep, { o: { f: v } }, m);
          } catch (e) {
            b = e as Error;
          }
          if (a instanceof Error || b instanceof Error) expect(String(a)).toBe(String(b));
          else expect(a).toBe(b);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('ISO date fast path agrees with instant comparison', () => {
    const instant = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2040, 0, 1) });
    fc.assert(
      fc.property(instant, instant, fc.constantFrom('gt', 'gte', 'lt', 'lte'), fc.boolean(), (docT, boundT, op, short) => {
        const t = short ? Math.floor(docT / 1000) * 1000 : docT;
        const iso = new Date(t).toISOString();
        const docValue = short ? iso.slice(0, 19) + 'Z' : iso;
        const bound = new Date(boundT).toISOString();
        const expected = op === 'gt' ? t > boundT : op === 'gte' ? t >= boundT : op === 'lt' ? t < boundT : t <= boundT;
        const q = { range: { created_at: { [op]: bound } } } as Query;
        expect(evaluate(q, { created_at: docValue }, mapping)).toBe(expected);
        expect(evaluate(q, { o: 1, created_at: [docValue] }, undefined)).toBe(expected);
        expect(evaluate(q, { created_at: new Date(t) }, mapping)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('bool follows its logical definition', () => {
    const leaf = fc.constantFrom<[Query, boolean]>([T('tags', 'safe') as Query, true], [T('tags', 'nope') as Query, false]);
    fc.assert(
      fc.property(
        fc.array(leaf, { maxLength: 3 }),
        fc.array(leaf, { maxLength: 3 }),
        fc.array(leaf, { maxLength: 3 }),
        fc.array(leaf, { maxLength: 3 }),
        (must, filter, should, mustNot) => {
          const q = {
            bool: { must: must.map((x) => x[0]), filter: filter.map((x) => x[0]), should: should.map((x) => x[0]), must_not: mustNot.map((x) => x[0]) },
          } as Query;
          const required = [...must, ...filter];
          const expected =
            required.every((x) => x[1]) &&
            !mustNot.some((x) => x[1]) &&
            (should.length === 0 || required.length > 0 || should.some((x) => x[1]));
          expect(evaluate(q, image, mapping)).toBe(expected);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
