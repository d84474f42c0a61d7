import { describe, expect, it } from 'vitest';
import { type Query, compileEvaluator, evaluate } from '../../grammar/index.js';
import { mapping, image, NOW, check, hit, miss, T } from './evaluate-doc.js';

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

