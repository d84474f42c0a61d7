import { describe, expect, it } from 'vitest';
import { filterIdsIn, type FilterRule, type Query, type QueryContext, type WatchList } from '../../grammar/index.js';
import { compileSaved } from '../../grammar/compiler.js';
import { imageFields } from '../../src/search/indexes/images/fields.js';
import { assertValidQuery } from '../support/dsl-schema.js';
import { dsl, must, queryError, should, tag } from './helpers.js';

const user: QueryContext = { userId: 1 };

describe('images my:', () => {
  it.each<[string, Query]>([
    ['my:faves', { term: { favourited_by_user_ids: 1 } }],
    ['my:upvotes', { term: { upvoter_ids: 1 } }],
    ['my:downvotes', { term: { downvoter_ids: 1 } }],
    ['my:uploads', { term: { true_uploader_id: 1 } }],
    ['my:hidden', { term: { hidden_by_user_ids: 1 } }],
    ['my:subs', { term: { subscriber_ids: 1 } }],
    ['my: faves ', { term: { favourited_by_user_ids: 1 } }],
    ['"my:faves"', { term: { favourited_by_user_ids: 1 } }],
  ])('%j', (input, expected) => {
    expect(dsl(input, { role: 'user', context: user })).toEqual(expected);
    expect(dsl(input, { role: 'moderator', context: user })).toEqual(expected);
  });

  it.each(['my:faves', 'my:upvotes', 'my:watched', 'my:nonsense'])('%j needs a logged-in user', (input) => {
    const error = queryError(input);
    expect(error.message).toBe("You must be logged in to use `my' queries.");
    expect(error.position.offset).toBe(3);
    expect(queryError(input, { role: 'user' }).message).toBe("You must be logged in to use `my' queries.");
  });

  it.each(['my:favourites', 'my:Faves', 'my:', 'my:toString', 'my:__proto__'])('%j is unknown', (input) => {
    expect(queryError(input, { role: 'user', context: user }).message).toBe("Unknown `my' value.");
  });

  it('takes no ranges', () => {
    const error = queryError('my.gt:faves', { role: 'user', context: user });
    expect([error.message, error.position.offset]).toEqual(['range specified for my', 0]);
  });
});

describe('images my:watched', () => {
  const watch = (list: WatchList | undefined): QueryContext => ({ userId: 1, ...(list ? { watchList: list } : {}) });

  it('is the watched tags or the watch query, minus the exclude query', () => {
    expect(dsl('my:watched', { role: 'user', context: watch({ tagIds: [3, 4], include: 'pony\nunicorn', exclude: '-safe' }) })).toEqual({
      bool: {
        should: [{ terms: { tag_ids: [3, 4] } }, should(tag('pony'), tag('unicorn'))],
        must_not: [{ bool: { must_not: tag('safe') } }],
      },
    });
  });

  it('compiles empty strings to match_none (a user without a watch list)', () => {
    expect(dsl('my:watched', { role: 'user', context: watch(undefined) })).toEqual({
      bool: { should: [{ terms: { tag_ids: [] } }, { match_none: {} }], must_not: [{ match_none: {} }] },
    });
  });

  it('adds the current filter’s spoilers when the user hides them from the watch list', () => {
    expect(
      dsl('my:watched', {
        role: 'user',
        context: watch({ tagIds: [1], include: '', exclude: 'solo', spoilered: { tagIds: [7, 8], complex: 'grimdark\r\nscore.lt:0' } }),
      }),
    ).toEqual({
      bool: {
        should: [{ terms: { tag_ids: [1] } }, { match_none: {} }],
        must_not: [{ terms: { tag_ids: [7, 8] } }, should(tag('grimdark'), { range: { score: { lt: 0 } } }), tag('solo')],
      },
    });
  });

  it('compiles broken strings to match_none, never to match_all', () => {
    expect(dsl('my:watched', { role: 'user', context: watch({ tagIds: [], include: 'safe)', exclude: 'width:abc' }) })).toEqual({
      bool: { should: [{ terms: { tag_ids: [] } }, { match_none: {} }], must_not: [{ match_none: {} }] },
    });
  });

  it('refuses to recurse', () => {
    expect(dsl('my:watched', { role: 'user', context: watch({ tagIds: [], include: 'my:watched', exclude: '' }) })).toEqual({
      bool: { should: [{ terms: { tag_ids: [] } }, { match_none: {} }], must_not: [{ match_none: {} }] },
    });
    const error = queryError('a, my:watched', { role: 'user', context: { ...watch(undefined), watch: true } });
    expect([error.message, error.position.offset]).toEqual(['Recursive watchlists are not allowed.', 6]);
  });

  it('compiles the watch strings with the searcher’s role and user', () => {
    const q = dsl('my:watched', { role: 'moderator', context: { userId: 9, watchList: { tagIds: [], include: 'ip:10.0.0.1, my:faves' } } });
    expect(q.bool!.should).toEqual([{ terms: { tag_ids: [] } }, must({ term: { ip: '10.0.0.1' } }, { term: { favourited_by_user_ids: 9 } })]);
  });
});

describe('images gallery_id:', () => {
  it.each<[string, number]>([
    ['gallery_id:5', 5],
    ['gallery_id:0', 0],
    ['gallery_id:+5', 5],
    ['gallery_id: 12 ', 12],
  ])('%j', (input, id) => {
    expect(dsl(input)).toEqual({ nested: { path: 'galleries', query: { term: { 'galleries.id': id } } } });
  });

  it.each(['x', '-1', '1.5', '5x', '', '99999999999'])('gallery_id:%s is invalid', (value) => {
    const error = queryError(`gallery_id:${value}`);
    expect([error.message, error.position.offset]).toEqual([`Invalid gallery \`${value}'.`, 11]);
  });

  it('takes no ranges', () => {
    expect(queryError('gallery_id.gte:5').message).toBe('range specified for gallery_id');
  });
});

describe('images filter_id:', () => {
  const rules: Record<number, FilterRule> = {
    1: { hiddenTagIds: [10, 11], hiddenComplex: 'grimdark\nscore.lt:-10' },
    2: { hiddenTagIds: [], hiddenComplex: '' },
    3: { hiddenTagIds: [5], hiddenComplex: 'safe)' },
    4: { hiddenTagIds: [], hiddenComplex: 'filter_id:1' },
    5: { hiddenTagIds: [], hiddenComplex: 'my:faves' },
  };
  const context: QueryContext = { filters: (id) => rules[id] };

  it('shows the images the filter would show', () => {
    expect(dsl('filter_id:1', { context })).toEqual({
      bool: { must_not: [{ terms: { tag_ids: [10, 11] } }, should(tag('grimdark'), { range: { score: { lt: -10 } } })] },
    });
  });

  it('compiles an empty, broken or self-referring complex string to match_none', () => {
    for (const id of [2, 3, 4]) {
      expect(dsl(`filter_id:${id}`, { context }).bool!.must_not).toEqual([
        { terms: { tag_ids: rules[id]!.hiddenTagIds } },
        { match_none: {} },
      ]);
    }
  });

  it('compiles the complex string as the searcher', () => {
    expect(dsl('filter_id:5', { context }).bool!.must_not).toEqual([{ terms: { tag_ids: [] } }, { match_none: {} }]);
    expect(dsl('filter_id:5', { role: 'user', context: { ...context, userId: 4 } }).bool!.must_not).toEqual([
      { terms: { tag_ids: [] } },
      { term: { favourited_by_user_ids: 4 } },
    ]);
  });

  it.each(['9', 'x', '-1', '1.0', '', '99999999999'])('filter_id:%s is invalid', (value) => {
    const error = queryError(`filter_id:${value}`, { context });
    expect([error.message, error.position.offset]).toEqual([`Invalid filter \`${value}\`.`, 10]);
  });

  it('is invalid without a lookup (no filter is visible)', () => {
    expect(queryError('filter_id:1').message).toBe('Invalid filter `1`.');
  });

  it('is refused inside a filter’s own complex string', () => {
    const error = queryError('safe OR filter_id:1', { context: { ...context, filter: true } });
    expect([error.message, error.position.offset]).toEqual(['Filter queries inside filters are not allowed.', 18]);
  });

  it('filterIdsIn finds the IDs to load, like the reference’s scan', () => {
    expect(filterIdsIn('filter_id:1, (a OR filter_id:22) ,xfilter_id:3, filter_id:1, filter_id:99999999999, "filter_id:4"')).toEqual([1, 22, 4]);
  });
});

describe('my: on the other indexes', () => {
  it.each<[string, string, string]>([
    ['comments', 'my:comments', 'true_author_id'],
    ['posts', 'my:posts', 'true_author_id'],
    ['galleries', 'my:galleries', 'true_creator_id'],
    ['filters', 'my:filters', 'user_id'],
  ])('%s %s', (index, input, field) => {
    const i = index as 'comments';
    expect(dsl(input, { index: i, role: 'user', context: { userId: 3 } })).toEqual({ term: { [field]: 3 } });
    expect(dsl(input, { index: i, role: 'admin', context: { userId: 3 } })).toEqual({ term: { [field]: 3 } });
    expect(queryError('my:images', { index: i, role: 'user', context: { userId: 3 } }).message).toBe("Unknown `my' value.");
    // Anonymous searchers have no `my` field: the text is searched as it is.
    const asText = dsl(input, { index: i });
    expect(asText).toEqual(i === 'comments' || index === 'posts' ? { match_phrase: { body: input } } : { term: { [index === 'galleries' ? 'title' : 'name']: input } });
  });

  it('tags have no my:', () => {
    expect(dsl('my:tags', { index: 'tags', role: 'user', context: { userId: 1 } })).toEqual({ term: { name: 'my:tags' } });
  });
});

describe('compileSaved (filter and watch-list strings)', () => {
  const options = { fields: imageFields, context: { now: 0 } };
  it.each<[string | null | undefined, Query]>([
    [null, { match_none: {} }],
    ['', { match_none: {} }],
    ['safe', tag('safe')],
    ['safe\r\nsolo, -pony', should(tag('safe'), must(tag('solo'), { bool: { must_not: tag('pony') } }))],
    ['safe)', { match_none: {} }],
    ['ok\nwidth:abc', { match_none: {} }],
  ])('%j', (text, expected) => {
    const q = compileSaved(text, options);
    assertValidQuery(q);
    expect(q).toEqual(expected);
  });
});
