/**
 * Clause trees (grammar/clauses.ts): each node's text is its slice of the query, the root's DSL is
 * exactly what `compileQuery` gives, and matching a hand-written document marks each clause as
 * worked out by hand. Also the offsets of a multi-line filter string mapped back to its lines.
 */
import { describe, expect, it } from 'vitest';
import { clausePredicates, matchClauses, type ClauseMatch, QueryError } from '../../grammar/index.js';
import { clauseTree, compileQuery } from '../../grammar/compiler.js';
import { multilineText } from '../../src/contexts/search/multiline.js';
import { imageFields } from '../../src/search/indexes/images/fields.js';
import { imagesMapping } from '../../src/search/indexes/images/mapping.js';

const options = { fields: imageFields };
const flat = (m: ClauseMatch): [string, boolean][] => [[m.text, m.matched], ...m.children.flatMap(flat)];

describe('clause trees', () => {
  it('mirror the query, and the root compiles as the whole query does', () => {
    const q = 'safe, (solo || cute), -score.gt:50, fluffy^2';
    const tree = clauseTree(q, options)!;
    expect(tree.query).toEqual(compileQuery(q, options));
    expect(tree.kind).toBe('and');
    expect(tree.children.map((c) => [c.kind, c.text])).toEqual([
      ['term', 'safe'],
      ['or', '(solo || cute)'],
      ['not', '-score.gt:50'],
      ['boost', 'fluffy^2'],
    ]);
    for (const c of tree.children) expect(q.slice(c.start, c.end)).toBe(c.text);
  });

  it('mark what a hand-written document matches', () => {
    const doc = { id: 1, tags: ['safe', 'cute'], score: 80 };
    const tree = clausePredicates(clauseTree('safe, (solo || cute), -score.gt:50', options)!, imagesMapping);
    expect(flat(matchClauses(tree, doc))).toEqual([
      ['safe, (solo || cute), -score.gt:50', false],
      ['safe', true],
      ['(solo || cute)', true],
      ['solo', false],
      ['cute', true],
      ['-score.gt:50', false],
      ['score.gt:50', true],
    ]);
  });

  it('raise the same errors as compiling, and nothing for an empty query', () => {
    expect(() => clauseTree('safe, (solo', options)).toThrow(QueryError);
    expect(clauseTree('   ', options)).toBeNull();
  });
});

describe('multi-line filter text', () => {
  it('maps offsets of the normalized text back to the written lines', () => {
    const written = 'safe\r\n\nsolo, cute';
    const text = multilineText(written);
    expect(text.normalized).toBe('(safe) || (solo, cute)');
    expect(written[text.toWritten(text.normalized.indexOf('cute'))]).toBe('c');
    expect(text.toWritten(text.normalized.indexOf('cute'))).toBe(written.indexOf('cute'));
    expect(text.toWritten(text.normalized.length)).toBe(written.length);
    expect(text.toWritten(0)).toBe(0);
  });
});
