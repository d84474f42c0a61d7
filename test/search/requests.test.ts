import { describe, expect, it } from 'vitest';
import {
  buildCommentSearch,
  buildFilterSearch,
  buildGallerySearch,
  buildImageSearch,
  buildPostSearch,
  buildTagSearch,
  parseImageSort,
} from '../../src/search/requests/index.js';
import { assertValidSearchBody } from '../support/dsl-schema.js';

const Q = { term: { tags: 'safe' } } as const;
const none = { match_none: {} } as const;

describe('image sort (sf, sd)', () => {
  it.each([
    ['id', 'asc', [{ id: 'asc' }]],
    ['score', 'asc', [{ score: 'asc' }, { id: 'asc' }]],
    ['wilson_score', 'desc', [{ wilson_score: 'desc' }, { id: 'desc' }]],
    ['created_at', 'desc', [{ created_at: 'desc' }, { id: 'desc' }]],
    ['_score', 'desc', [{ _score: 'desc' }, { id: 'desc' }]],
    ['nonsense', 'asc', [{ first_seen_at: 'asc' }, { id: 'asc' }]],
    [undefined, undefined, [{ first_seen_at: 'desc' }, { id: 'desc' }]],
    ['score', 'sideways', [{ score: 'desc' }, { id: 'desc' }]],
    ['gallery_id:x', 'asc', [{ first_seen_at: 'asc' }, { id: 'asc' }]],
  ])('sf=%s sd=%s', (sf, sd, sort) => {
    expect(parseImageSort(sf, sd).sort).toEqual(sort);
  });

  it('sorts by gallery position through the nested galleries field', () => {
    expect(parseImageSort('gallery_id:7', 'desc').sort).toEqual([
      { 'galleries.position': { order: 'desc', nested: { path: 'galleries', filter: { term: { 'galleries.id': 7 } } } } },
      { id: 'desc' },
    ]);
  });

  it('random orders carry a seed: given, parsed like Integer.parse, or drawn', () => {
    expect(parseImageSort('random:1234', 'asc')).toEqual({ sort: [{ _score: 'asc' }, { id: 'asc' }], randomSeed: 1234 });
    expect(parseImageSort('random:99abc', 'desc').randomSeed).toBe(99);
    expect(parseImageSort('random', 'desc', () => 5).randomSeed).toBe(5);
    expect(parseImageSort('random:zz', 'desc', () => 6).randomSeed).toBe(6);
  });
});

describe('request bodies', () => {
  it('images: approval, hidden, own hides and the filter are excluded', () => {
    const body = buildImageSearch({
      query: Q,
      sort: parseImageSort(undefined, undefined),
      filters: [{ tagIds: [3, 4], complex: { term: { tags: 'grotesque' } } }],
      userId: 12,
      page: 2,
      perPage: 25,
    });
    expect(body).toEqual({
      query: {
        bool: {
          must: Q,
          must_not: [
            { term: { approved: false } },
            { term: { hidden_by_user_ids: 12 } },
            { term: { hidden_from_users: true } },
            { bool: { should: [{ terms: { tag_ids: [3, 4] } }, { bool: { should: [{ term: { tags: 'grotesque' } }] } }] } },
          ],
        },
      },
      sort: [{ first_seen_at: 'desc' }, { id: 'desc' }],
      from: 25,
      size: 25,
    });
    assertValidSearchBody(body);
  });

  it('images: an empty filter adds nothing; hidden=1 keeps own hides; del modes for staff', () => {
    const base = { query: Q, sort: parseImageSort('id', 'asc'), filters: [{ tagIds: [], complex: none }], page: 1, perPage: 10 };
    expect(buildImageSearch({ ...base, userId: 1, showOwnHidden: true }).query).toEqual({
      bool: { must: Q, must_not: [{ term: { approved: false } }, { term: { hidden_from_users: true } }] },
    });
    expect(buildImageSearch({ ...base, deleted: 'include' }).query).toEqual({ bool: { must: Q, must_not: [{ term: { approved: false } }] } });
    const deleted = buildImageSearch({ ...base, deleted: 'deleted' });
    expect(deleted.query).toEqual({
      bool: { must: Q, must_not: [{ term: { approved: false } }, { term: { hidden_from_users: false } }, { exists: { field: 'duplicate_id' } }] },
    });
    assertValidSearchBody(deleted);
  });

  it('images: random order scores the query by a seeded random value of the id', () => {
    const body = buildImageSearch({ query: Q, sort: parseImageSort('random:42', 'desc'), filters: [], page: 1, perPage: 5 });
    expect(body.query).toEqual({
      bool: {
        must: { function_score: { query: Q, functions: [{ random_score: { seed: 42, field: 'id' } }], boost_mode: 'replace' } },
        must_not: [{ term: { approved: false } }, { term: { hidden_from_users: true } }],
      },
    });
    assertValidSearchBody(body);
  });

  it('comments: anonymous, logged-in and staff visibility', () => {
    const anon = buildCommentSearch({ query: Q, hiddenTagIds: [9], staff: false, page: 1, perPage: 25 });
    expect(anon).toEqual({
      query: {
        bool: {
          must: Q,
          must_not: [
            { term: { approved: false } },
            { term: { 'image.approved': false } },
            { term: { hidden_from_users: true } },
            { term: { 'image.hidden_from_users': true } },
            { terms: { 'image.tag_ids': [9] } },
          ],
        },
      },
      sort: [{ created_at: 'desc' }, { id: 'desc' }],
      from: 0,
      size: 25,
    });
    const user = buildCommentSearch({ query: Q, hiddenTagIds: [], userId: 5, staff: false, page: 1, perPage: 25 });
    expect((user.query as { bool: { must_not: unknown[] } }).bool.must_not[0]).toEqual({
      bool: { should: [{ term: { approved: false } }, { term: { 'image.approved': false } }], must_not: [{ term: { true_author_id: 5 } }] },
    });
    const staff = buildCommentSearch({ query: Q, hiddenTagIds: [9], userId: 1, staff: true, page: 1, perPage: 25 });
    expect(staff.query).toEqual({ bool: { must: Q, must_not: [{ terms: { 'image.tag_ids': [9] } }] } });
    for (const b of [anon, user, staff]) assertValidSearchBody(b);
  });

  it('posts, galleries, tags and filters', () => {
    const page = { page: 3, perPage: 10 };
    const posts = buildPostSearch({ query: Q, ...page });
    expect(posts).toEqual({
      query: { bool: { must: [Q, { term: { hidden_from_users: false } }, { term: { access_level: 'normal' } }] } },
      sort: [{ created_at: 'desc' }, { id: 'desc' }],
      from: 20,
      size: 10,
    });
    expect(buildGallerySearch({ query: Q, ...page })).toEqual({ query: Q, sort: [{ created_at: 'desc' }, { id: 'desc' }], from: 20, size: 10 });
    expect(buildTagSearch({ query: Q, ...page }).sort).toEqual([{ images: 'desc' }, { name: 'asc' }]);
    expect(buildFilterSearch({ query: Q, userId: 4, ...page })).toEqual({
      query: { bool: { must: [Q, { bool: { should: [{ term: { public: true } }, { term: { system: true } }, { term: { user_id: 4 } }] } }] } },
      sort: [{ name: 'asc' }, { id: 'desc' }],
      from: 20,
      size: 10,
    });
    expect(buildFilterSearch({ query: Q, ...page }).query).toEqual({
      bool: { must: [Q, { bool: { should: [{ term: { public: true } }, { term: { system: true } }] } }] },
    });
    for (const b of [posts, buildGallerySearch({ query: Q, ...page }), buildTagSearch({ query: Q, ...page }), buildFilterSearch({ query: Q, ...page })]) {
      assertValidSearchBody(b);
    }
  });
});
