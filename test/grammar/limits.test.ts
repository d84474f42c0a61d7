import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, parse, type QueryNode } from '../../grammar/index.js';
import { compile, compileQuery } from '../../grammar/compiler.js';
import { imageFields } from '../../src/search/indexes/images/fields.js';
import { assertValidQuery } from '../support/dsl-schema.js';
import { dsl, queryError } from './helpers.js';

describe('limits', () => {
  it('has generous defaults', () => {
    expect(DEFAULT_LIMITS).toEqual({ maxLength: 16_384, maxTerms: 1_024, maxDepth: 64 });
  });

  it('refuses a query longer than the limit', () => {
    expect(() => dsl('a'.repeat(16_384))).not.toThrow();
    const error = queryError('a'.repeat(16_385));
    expect([error.message, error.position.offset]).toEqual(['Search query is too long (the limit is 16384 characters).', 16_384]);
    expect(queryError('abcdef', { limits: { maxLength: 5 } }).message).toBe('Search query is too long (the limit is 5 characters).');
  });

  it('refuses more terms than the limit', () => {
    const terms = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`).join(',');
    expect(() => dsl(terms(1024))).not.toThrow();
    const error = queryError(terms(1025));
    expect(error.message).toBe('Search query has too many terms (the limit is 1024).');
    expect(error.position.offset).toBe(terms(1024).length + 1);
    expect(queryError('a, b, c', { limits: { maxTerms: 2 } }).position.offset).toBe(6);
  });

  it('refuses nesting deeper than the limit', () => {
    const nest = (n: number) => `${'('.repeat(n)}a${')'.repeat(n)}`;
    expect(dsl(nest(64))).toEqual({ term: { tags: 'a' } });
    const error = queryError(nest(65));
    expect([error.message, error.position.offset]).toEqual(['Search query is nested too deeply (the limit is 64 levels).', 64]);
    expect(queryError(`-(${nest(70)})`).message).toBe('Search query is nested too deeply (the limit is 64 levels).');
    expect(queryError(nest(3), { limits: { maxDepth: 2 } }).position.offset).toBe(2);
  });

  it('counts balanced parentheses inside a term too', () => {
    const inTerm = (n: number) => `x${'(a'.repeat(n)}${')'.repeat(n)}`;
    expect(dsl(inTerm(64))).toEqual({ term: { tags: inTerm(64) } });
    expect(queryError(inTerm(65)).message).toBe('Search query is nested too deeply (the limit is 64 levels).');
  });

  it('caps the nesting limit where the stack still holds', () => {
    const nest = (n: number) => `${'-('.repeat(n)}a${')'.repeat(n)}`;
    expect(() => dsl(nest(200), { limits: { maxDepth: 10_000 } })).not.toThrow();
    expect(queryError(nest(201), { limits: { maxDepth: 10_000 } }).message).toBe('Search query is nested too deeply (the limit is 200 levels).');
    expect(queryError(nest(5000), { limits: { maxDepth: 10_000, maxLength: 1e6 } }).message).toMatch(/nested too deeply/);
  });

  it('refuses a hand-built tree that is too deep', () => {
    let root: QueryNode = { kind: 'term', raw: 'a' };
    for (let i = 0; i < 5000; i++) root = { kind: 'not', child: root };
    expect(() => compile({ input: '', root }, { fields: imageFields })).toThrow(/nested too deeply/);
  });

  it('handles big inputs quickly and without recursion trouble', () => {
    const limits = { maxLength: 1e7, maxTerms: 1e6 };
    const started = process.cpuUsage();
    const ors = Array.from({ length: 20_000 }, (_, i) => `t${i}`).join(' OR ');
    const big = compileQuery(ors, { fields: imageFields, limits });
    assertValidQuery(big);
    // 513 in the innermost list, 512 plus the nested list in each of the 38 around it, the rest outside
    expect(big.bool?.should).toHaveLength(20_000 - 513 - 38 * 512 + 1);
    const spaces = `a${' '.repeat(100_000)}b`;
    expect(compileQuery(spaces, { fields: imageFields, limits })).toEqual({ term: { tags: 'a b' } });
    const unbalanced = 'x('.repeat(5_000);
    expect(() => compileQuery(unbalanced, { fields: imageFields, limits })).toThrow();
    const commas = ','.repeat(100_000);
    expect(() => compileQuery(commas, { fields: imageFields, limits })).toThrow('Expected a term.');
    const escapes = '\\'.repeat(100_001);
    expect(parse(escapes, { limits }).root).toMatchObject({ kind: 'term' });
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(5_000);
  }, 60_000);
});
