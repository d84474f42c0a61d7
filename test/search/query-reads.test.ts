/**
 * What a query and a sort read of a document (src/search/embedded/query/reads.ts) and how a
 * document's fields changed (query/field-changes.ts), the two halves of telling which kept
 * answers a write cannot concern, and the kept answers listed by what they read
 * (answers-by-reads.ts). Whole-engine behaviour is in result-cache.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { fieldChanges } from '../../src/search/embedded/query/field-changes.js';
import { AnswersByReads } from '../../src/search/embedded/answers-by-reads.js';
import { readsOf } from '../../src/search/embedded/query/reads.js';

const KEYWORDS = new Set(['tags', 'tag_ids', 'uploader']);
const isKeyword = (path: string) => KEYWORDS.has(path);

describe('what a query reads', () => {
  it('reads the terms of term queries on keyword fields, and other fields whole', () => {
    const query = {
      bool: {
        must: [{ term: { tags: 'safe' } }, { terms: { tag_ids: [3, '7'] } }, { range: { score: { gte: 5 } } }],
        must_not: [{ term: { approved: false } }, { wildcard: { tags: 'ab*' } }, { term: { uploader: { value: 'Bob', case_insensitive: true } } }],
      },
    };
    const reads = readsOf(query, [{ created_at: 'desc' }, { id: 'desc' }], isKeyword);
    expect(reads.everything).toBe(false);
    expect([...reads.fields].sort()).toEqual(['approved', 'created_at', 'id', 'score', 'uploader']);
    expect(Object.fromEntries([...reads.terms].map(([f, t]) => [f, [...t].sort()]))).toEqual({ tags: ['safe'], tag_ids: ['3', '7'] });
    // a pattern on a keyword field reads the terms it passes; on another field, the field whole
    expect([...reads.patterns.keys()]).toEqual(['tags']);
    const test = reads.patterns.get('tags')!.get('wildcard:s:ab*')!;
    expect(['ab', 'abc', 'xab', 'Ab'].filter(test)).toEqual(['ab', 'abc']);
    const caseless = readsOf({ prefix: { tags: { value: 'Ab', case_insensitive: true } } }, undefined, isKeyword).patterns.get('tags')!.get('prefix:i:Ab')!;
    expect(['ab', 'ABC', 'xab'].filter(caseless)).toEqual(['ab', 'ABC']);
    expect(readsOf({ prefix: { description: 'ab' } }, undefined, isKeyword)).toMatchObject({ fields: new Set(['description']), patterns: new Map() });
  });

  it('reads everything of what it does not work out: unknown kinds, nested queries, sorts on _script', () => {
    expect(readsOf({ script: { source: 'x' } }, undefined, isKeyword).everything).toBe(true);
    expect(readsOf({ nested: { path: 'galleries', query: { match_all: {} } } }, undefined, isKeyword).everything).toBe(true);
    expect(readsOf({ match_all: {} }, [{ _script: { type: 'number' } }], isKeyword).everything).toBe(true);
    expect(readsOf({ term: { tags: { value: 1.5 } } }, undefined, isKeyword).fields.has('tags')).toBe(true);
    // a random order of ids reads no field; one by another field is not worked out
    const random = (field?: string) => ({ function_score: { query: { match_all: {} }, functions: [{ random_score: { seed: 1, ...(field ? { field } : {}) } }], boost_mode: 'replace' } });
    expect(readsOf(random('id'), [{ _score: 'desc' }, { id: 'asc' }], isKeyword)).toMatchObject({ everything: false });
    expect(readsOf(random('width'), undefined, isKeyword).everything).toBe(true);
  });
});

describe('how a document changed', () => {
  it('gives the keyword terms added or taken off, and other fields changed whole', () => {
    const before = { id: 1, tags: ['safe', 'cat'], tag_ids: [1, 2], tag_count: 2, score: 5, description: 'a' };
    const after = { id: 1, tags: ['cat', 'safe', 'dog'], tag_ids: [1, 2, 3], tag_count: 3, score: 5, description: 'a', uploader: 'Bob' };
    const changes = fieldChanges(before, after, isKeyword);
    expect(Object.fromEntries([...changes].map(([f, t]) => [f, t && [...t].sort()]))).toEqual({ tags: ['dog'], tag_ids: ['3'], tag_count: null, uploader: ['Bob'] });
    // a value not compared by term changes the field whole
    expect(fieldChanges({ tags: ['a'] }, { tags: ['a', { x: 1 }] }, isKeyword).get('tags')).toBeNull();
  });

  it('compares an object field field by field, by dotted path, and one that stops being an object whole', () => {
    const isCommentKeyword = (path: string) => path === 'image.tag_ids';
    const before = { id: 1, image: { tag_ids: [1, 2], approved: true, hidden_from_users: false } };
    const changes = fieldChanges(before, { id: 1, image: { tag_ids: [1, 2, 3], approved: true, hidden_from_users: true } }, isCommentKeyword);
    expect(Object.fromEntries([...changes].map(([f, t]) => [f, t && [...t]]))).toEqual({ 'image.tag_ids': ['3'], 'image.hidden_from_users': null });
    expect([...fieldChanges(before, { id: 1 }, isCommentKeyword)]).toEqual([['image', null]]);
    // read by path: a term of `image.tag_ids` is read as a term, `image.approved` whole
    const reads = readsOf({ bool: { must_not: [{ terms: { 'image.tag_ids': [4, 5] } }, { term: { 'image.approved': false } }] } }, undefined, isCommentKeyword);
    expect(reads.terms).toEqual(new Map([['image.tag_ids', new Set(['4', '5'])]]));
    expect(reads.fields).toEqual(new Set(['image.approved']));
    const answers = new AnswersByReads();
    answers.add('listing', reads, true);
    answers.add('whole', readsOf({ exists: { field: 'image' } }, undefined, isCommentKeyword), true);
    // tag 3 added: the listing reads tags 4 and 5 only; what reads the whole object is concerned
    expect([...answers.concerned(changes)]).toEqual(['whole']);
    expect([...answers.concerned(fieldChanges(before, { ...before, image: { ...before.image, tag_ids: [1, 4] } }, isCommentKeyword))].sort()).toEqual(['listing', 'whole']);
    // the object gone: everything read inside it is concerned
    expect([...answers.concerned(new Map([['image', null]]))].sort()).toEqual(['listing', 'whole']);
  });

  it('concerns the answers that read a changed field or term, and only those', () => {
    const changes = fieldChanges({ tags: ['safe'], tag_count: 1 }, { tags: ['safe', 'dog'], tag_count: 2 }, isKeyword);
    const byTag = (tag: string, sort: unknown = [{ id: 'desc' }]) => readsOf({ term: { tags: tag } }, sort, isKeyword);
    const answers = new AnswersByReads();
    const listed = {
      safe: byTag('safe'),
      dog: byTag('dog'),
      safeByTagCount: byTag('safe', [{ tag_count: 'desc' }, { id: 'desc' }]),
      prefix: readsOf({ prefix: { tags: 's' } }, undefined, isKeyword),
      score: readsOf({ range: { score: { gt: 1 } } }, undefined, isKeyword),
      script: readsOf({ script: { source: 'x' } }, undefined, isKeyword),
    };
    for (const [key, reads] of Object.entries(listed)) answers.add(key, reads, true);
    // an order not settled by sort keys alone: checked at every edit, whatever it reads
    answers.add('scoreUnsettled', listed.score, false);
    const concerned = () => [...answers.concerned(changes)].sort();
    // (the prefix `s` does not pass `dog`: its search is not concerned)
    expect(concerned()).toEqual(['dog', 'safeByTagCount', 'scoreUnsettled', 'script']);
    const sheep = fieldChanges({ tags: ['safe'] }, { tags: ['safe', 'sheep'] }, isKeyword);
    expect([...answers.concerned(sheep)].sort()).toEqual(['prefix', 'scoreUnsettled', 'script']);
    // a keyword field changed whole concerns every answer reading some of its terms
    expect([...answers.concerned(new Map([['tags', null]]))].sort()).toEqual(['dog', 'prefix', 'safe', 'safeByTagCount', 'scoreUnsettled', 'script']);
    expect([...answers.concerned(new Map([['score', null]]))].sort()).toEqual(['score', 'scoreUnsettled', 'script']);
    // taken out, an answer is no longer found, and the others still are
    answers.remove('dog', listed.dog, true);
    answers.remove('script', listed.script, true);
    answers.remove('scoreUnsettled', listed.score, false);
    expect(concerned()).toEqual(['safeByTagCount']);
    answers.remove('prefix', listed.prefix, true);
    expect([...answers.concerned(sheep)]).toEqual([]);
  });
});
