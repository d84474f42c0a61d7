/**
 * The engine thread's parsed requests: one frozen object per text while kept, equal to what
 * `JSON.parse` gives; long texts and requests kept a second at most parsed each time and left as
 * they are; a text found kept is a hit of `engine_parsed_requests`, any other a miss.
 */
import { describe, expect, it } from 'vitest';
import { CacheRegistry } from '../../src/lib/cache-registry.js';
import { ParsedRequests } from '../../src/search/embedded/thread/parsed-requests.js';

describe('ParsedRequests', () => {
  it('gives the same frozen object for the same text, a new one for another text', () => {
    const parsed = new ParsedRequests(new CacheRegistry());
    const text = JSON.stringify({ query: { bool: { must: [{ term: { tags: 'a' } }] } }, sort: [{ id: 'desc' }], size: 25 });
    const a = parsed.parse(text);
    expect(a).toEqual(JSON.parse(text));
    expect(parsed.parse(text)).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a.sort)).toBe(true);
    const must = (a.query as { bool: { must: object[] } }).bool.must;
    expect(Object.isFrozen(must)).toBe(true);
    expect(Object.isFrozen(must[0])).toBe(true);
    const other = parsed.parse(text.replace('"size":25', '"size":50'));
    expect(other).not.toBe(a);
    expect(other.size).toBe(50);
  });

  it('parses a long text each time and does not freeze it', () => {
    const parsed = new ParsedRequests(new CacheRegistry());
    const text = JSON.stringify({ query: { terms: { tags: Array.from({ length: 3_000 }, (_, i) => `tag number ${i}`) } } });
    const a = parsed.parse(text);
    expect(a).toEqual(JSON.parse(text));
    expect(Object.isFrozen(a)).toBe(false);
    expect(parsed.parse(text)).not.toBe(a);
  });

  it('keeps no request the engine may keep a second at most: its text names that second, and is not sent again', () => {
    const registry = new CacheRegistry();
    const parsed = new ParsedRequests(registry);
    const text = JSON.stringify({ query: { range: { created_at: { gte: '2026-11-26T18:00:00Z' } } }, size: 10, keepMs: 1000 });
    const a = parsed.parse(text);
    expect(a).toEqual(JSON.parse(text));
    expect(parsed.parse(text)).not.toBe(a);
    expect(registry.report()[0]).toMatchObject({ entries: 0 });
  });

  it('counts a text found kept as a hit, any other (a long one too) as a miss', () => {
    const registry = new CacheRegistry();
    const parsed = new ParsedRequests(registry);
    const text = JSON.stringify({ query: { match_all: {} }, size: 10 });
    const long = JSON.stringify({ query: { terms: { tags: Array.from({ length: 3_000 }, (_, i) => `tag number ${i}`) } } });
    for (const t of [text, text, text, long, long]) parsed.parse(t);
    expect(registry.report()).toEqual([{ name: 'engine_parsed_requests', budget: { entries: 4_096 }, entries: 1, hits: 2, misses: 3 }]);
  });
});
