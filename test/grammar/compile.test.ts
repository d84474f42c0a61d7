import { describe, expect, it } from 'vitest';
import { foldChain, MAX_CLAUSE_COUNT, negate, parse, type Query } from '../../grammar/index.js';
import { compile } from '../../grammar/compiler.js';
import { imageFields } from '../../src/search/indexes/images/fields.js';
import { assertValidQuery } from '../support/dsl-schema.js';
import { dsl, must, mustNot, NOW, queryError, should, tag, type Options } from './helpers.js';

const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(tag) as [Query, Query, Query, Query];

describe('compile: operators (reference §3.1)', () => {
  it.each<[string, Query]>([
    ['a', a],
    ['a, b', must(a, b)],
    ['a,b', must(a, b)],
    ['a AND b', must(a, b)],
    ['a && b', must(a, b)],
    ['a OR b', should(a, b)],
    ['a || b', should(a, b)],
    ['-a', mustNot(a)],
    ['!a', mustNot(a)],
    ['NOT a', mustNot(a)],
    ['- a', mustNot(a)],
    ['a, b, c, d', must(a, b, c, d)],
    ['a OR b OR c', should(a, b, c)],
    ['a || b, c', should(a, must(b, c))],
    ['a, b || c, d', should(must(a, b), must(c, d))],
    ['(a || b), c', must(should(a, b), c)],
    ['-(a, b)', mustNot(must(a, b))],
    ['NOT (a OR b)', mustNot(should(a, b))],
    ['-a, -b', must(mustNot(a), mustNot(b))],
    ['(((a)))', a],
  ])('%j', (input, expected) => {
    expect(dsl(input)).toEqual(expected);
  });
});

describe('compile: flattening of right-hand chains (reference §1.9)', () => {
  it.each<[string, Query]>([
    ['a, (b, c)', must(a, b, c)],
    ['(a, b), c', must(must(a, b), c)],
    ['a, (b, (c, d))', must(a, b, c, d)],
    ['a OR (b OR c)', should(a, b, c)],
    ['(a OR b) OR c', should(should(a, b), c)],
    ['a, (b OR c)', must(a, should(b, c))],
    ['a OR (b, c)', should(a, must(b, c))],
    ['a, -(-(b, c))', must(a, b, c)],
    ['a, (b, c)^2', must(a, { function_score: { query: must(b, c), boost: 2 } })],
  ])('%j', (input, expected) => {
    expect(dsl(input)).toEqual(expected);
  });

  const terms = (n: number, sep: string) => Array.from({ length: n }, (_, i) => `t${i + 1}`).join(sep);
  const tags = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => tag(`t${from + i}`));

  it('keeps 513 operands in one list', () => {
    expect(dsl(terms(513, ','))).toEqual({ bool: { must: tags(1, 513) } });
    expect(dsl(terms(513, ' OR '))).toEqual({ bool: { should: tags(1, 513) } });
  });

  it('nests the 514th: must [t1, {must [t2..t514]}]', () => {
    expect(dsl(terms(514, ','))).toEqual({ bool: { must: [tag('t1'), { bool: { must: tags(2, 514) } }] } });
    expect(dsl(terms(514, ' || '))).toEqual({ bool: { should: [tag('t1'), { bool: { should: tags(2, 514) } }] } });
  });

  it('keeps folding from the right beyond that', () => {
    const q = dsl(terms(1024, ','));
    const outer = (q.bool?.must as Query[]) ?? [];
    expect(outer).toHaveLength(1024 - 513 + 1);
    expect(outer[0]).toEqual(tag('t1'));
    expect(outer[outer.length - 1]).toEqual({ bool: { must: tags(512, 1024) } });
  });

  it('foldChain flattens into a plain list from another source too', () => {
    expect(foldChain([a, must(b, c)], 'must')).toEqual(must(a, b, c));
    expect(foldChain([a, { bool: { must: [b], boost: 2 } }], 'must')).toEqual(must(a, { bool: { must: [b], boost: 2 } }));
    expect(foldChain([a, { bool: { must: b } }], 'must')).toEqual(must(a, { bool: { must: b } }));
    expect(MAX_CLAUSE_COUNT).toBe(512);
  });
});

describe('compile: negation', () => {
  it.each<[string, Query]>([
    ['-(-a)', a],
    ['-(-(-a))', mustNot(a)],
    ['-(-(-(-a)))', a],
    ['NOT (!a)', a],
    ['-(-a, b)', mustNot(must(mustNot(a), b))],
    ['-(-a^2)', mustNot({ function_score: { query: mustNot(a), boost: 2 } })],
    ['-(-a)^2', { function_score: { query: a, boost: 2 } }],
  ])('%j', (input, expected) => {
    expect(dsl(input)).toEqual(expected);
  });

  it('negate only unwraps a plain single negation object', () => {
    expect(negate(mustNot(a))).toEqual(a);
    expect(negate({ bool: { must_not: [a] } })).toEqual({ bool: { must_not: { bool: { must_not: [a] } } } });
    expect(negate({ bool: { must_not: a, should: [b] } })).toEqual(mustNot({ bool: { must_not: a, should: [b] } }));
  });
});

describe('compile: boosts', () => {
  it.each<[string, Query]>([
    ['a^2', { function_score: { query: a, boost: 2 } }],
    ['a ^2', { function_score: { query: a, boost: 2 } }],
    ['a^0', { function_score: { query: a, boost: 0 } }],
    ['a^0.5', { function_score: { query: a, boost: 0.5 } }],
    ['a^+1.50', { function_score: { query: a, boost: 1.5 } }],
    ['a^2.0', { function_score: { query: a, boost: 2 } }],
    ['-a^2', { function_score: { query: mustNot(a), boost: 2 } }],
    ['(a, b)^3', { function_score: { query: must(a, b), boost: 3 } }],
    ['(a^2)^3', { function_score: { query: { function_score: { query: a, boost: 2 } }, boost: 3 } }],
    ['a^2, b', must({ function_score: { query: a, boost: 2 } }, b)],
    ['"a"^2', { function_score: { query: a, boost: 2 } }],
  ])('%j', (input, expected) => {
    expect(dsl(input)).toEqual(expected);
  });
});

describe('compile: empty queries match nothing', () => {
  it.each(['', '   ', '\n\t', null, undefined])('%j', (input) => {
    expect(dsl(input)).toEqual({ match_none: {} });
  });
});

describe('compile: trees without source', () => {
  it('compiles a hand-built tree', () => {
    const q = compile(
      { input: '', root: { kind: 'or', children: [{ kind: 'term', raw: 'A' }, { kind: 'not', child: { kind: 'term', raw: 'width:5' } }] } },
      { fields: imageFields },
    );
    assertValidQuery(q);
    expect(q).toEqual(should(a, mustNot({ term: { width: 5 } })));
  });

  it('compiles a parsed tree the same as compileQuery', () => {
    for (const input of ['a, (b OR -c)^2', 'width.gt:5, created_at:2020', '*']) {
      expect(compile(parse(input), { fields: imageFields })).toEqual(dsl(input));
    }
  });
});

describe('compile: a text seen before', () => {
  const fresh = (input: string, options: Options) =>
    compile(parse(input), { fields: imageFields, role: options.role ?? 'anonymous', context: { now: NOW, ...options.context } });

  it("gives each caller its own answer: role, user and clock are the call's", () => {
    const input = 'created_at.gte:3 days ago, my:faves, (safe || solo)';
    const calls: Options[] = [
      { role: 'user', context: { userId: 1 } },
      { role: 'user', context: { userId: 2, now: NOW + 86_400_000 } },
      { role: 'moderator', context: { userId: 3, now: NOW - 86_400_000 } },
    ];
    const answers = calls.map((options) => dsl(input, options));
    calls.forEach((options, i) => expect(answers[i]).toEqual(fresh(input, options)));
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(3);
    // the same text again, anonymous: the error a first compile gives
    expect(queryError(input).message).toBe(queryError(`${input} `).message);
  });

  it('hands out a new query each time, and keeps no text that failed', () => {
    const first = dsl('a, b');
    (first.bool!.must as Query[]).push(tag('c'));
    expect(dsl('a, b')).toEqual(must(a, b));
    const bad = 'width:wide, a';
    expect(queryError(bad).message).toBe(queryError(bad).message);
    expect(queryError('a, (b').message).toBe(queryError('a, (b').message);
  });
});
