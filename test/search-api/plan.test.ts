/**
 * The search context plans a search for a plain caller (no HTTP request): `q` compiled, the
 * current filter compiled once for the request's hiding and for spoilers, errors in the order
 * the API answers them. The HTTP suites (images, workbench, live search, reverse) check the answers.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Doc } from '../../grammar/index.js';
import type { SearchCaller, SearchDeps } from '../../src/contexts/search/caller.js';
import { SearchRequestError } from '../../src/contexts/search/errors.js';
import { compiledFilterOf, hiddenBy } from '../../src/contexts/search/filter.js';
import { planImageSearch, planLiveImageQuery, planSearch } from '../../src/contexts/search/plan.js';
import type { FilterSpec } from '../../src/contexts/search/filter-clauses.js';
import { planFilterSample, planImagesUnderFilter } from '../../src/contexts/search/workbench-plans.js';
import type { UserRow } from '../../src/contexts/users/types.js';
import type { FilterRow } from '../../src/contexts/filters/types.js';

let lastId = 900_000;

function filterRow(values: Partial<FilterRow>): FilterRow {
  return {
    id: ++lastId,
    name: 'test filter',
    description: '',
    system: true,
    public: true,
    userId: null,
    userCount: 0,
    hiddenTagIds: [],
    spoileredTagIds: [],
    hiddenComplexStr: '',
    spoileredComplexStr: '',
    createdAt: new Date(0),
    updatedAt: new Date(0),
    ...values,
  };
}

/** Planning an anonymous search without `filter_id:` reads nothing of the database or the engine. */
function depsWith(warnings: unknown[] = []): SearchDeps {
  return { logger: { warn: (obj: unknown) => warnings.push(obj) } } as unknown as SearchDeps;
}

const anonymous = (filter: FilterRow | null): SearchCaller => ({ user: null, currentFilter: async () => filter });

describe('planning a search', () => {
  it('plans /search/images for a plain caller, its request kept and hiding by the compiled filter', async () => {
    const row = filterRow({ hiddenTagIds: [7], hiddenComplexStr: 'score.gt:100' });
    const input = { q: 'safe', page: 1, perPage: 25 };
    const first = await planImageSearch(depsWith(), anonymous(row), input);
    expect(first.filter).toBe(row);
    const again = await planImageSearch(depsWith(), anonymous(row), input);
    expect(again.request).toBe(first.request);
    expect(again.reused).toBe(true);
    const hidden = compiledFilterOf(row, null).hiddenComplex;
    expect(hidden).toEqual({ range: { score: { gt: 100 } } });
    expect(JSON.stringify(first.request.query)).toContain(JSON.stringify(hidden));
  });

  it('compiles a filter once for hiding and spoilers: the same queries, the predicates made once', () => {
    const row = filterRow({ hiddenComplexStr: 'score.gt:100', spoileredComplexStr: 'width.gt:500' });
    const compiled = compiledFilterOf(row, null);
    expect(compiledFilterOf(row, null)).toBe(compiled);
    expect(hiddenBy(depsWith(), row, null)[0]!.complex).toBe(compiled.hiddenComplex);
    const predicates = compiled.predicates();
    expect(compiled.predicates()).toBe(predicates);
    const doc = (values: Record<string, unknown>) => ({ id: 1, score: 0, width: 0, ...values }) as Doc;
    expect(predicates.map((p) => p(doc({ score: 101 })))).toEqual([true, false]);
    expect(predicates.map((p) => p(doc({ width: 501 })))).toEqual([false, true]);
  });

  it('ignores a broken hidden expression (hiding nothing by it) and reports it once', () => {
    const warnings: unknown[] = [];
    const row = filterRow({ hiddenTagIds: [3], hiddenComplexStr: 'score.gt:' });
    expect(hiddenBy(depsWith(warnings), row, null)).toEqual([{ tagIds: [3], complex: { match_none: {} } }]);
    hiddenBy(depsWith(warnings), row, null);
    expect(warnings).toEqual([{ filterId: row.id, hiddenComplex: 'score.gt:' }]);
    expect(compiledFilterOf(row, null).predicates()).toEqual([]);
  });

  it('refuses a query that does not compile with where it fails, before a filter that cannot be used', async () => {
    const refused: SearchCaller = {
      user: null,
      currentFilter: () => Promise.reject(new Error('filter refused')),
    };
    const bad = await planImageSearch(depsWith(), refused, { q: 'safe AND (', page: 1, perPage: 25 }).catch((err: unknown) => err);
    expect(bad).toBeInstanceOf(SearchRequestError);
    expect((bad as SearchRequestError).query?.input).toBe('safe AND (');
    await expect(planImageSearch(depsWith(), refused, { q: 'safe', page: 1, perPage: 25 })).rejects.toThrow('filter refused');
  });

  it('keeps the same request object past its minute when it is built again the same (pages of images are kept by it)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const input = { q: 'solo, -safe', page: 2, perPage: 25 };
      const first = await planImageSearch(depsWith(), anonymous(null), input);
      vi.setSystemTime(Date.now() + 61_000);
      const later = await planImageSearch(depsWith(), anonymous(null), input);
      expect(later.request).toBe(first.request);
    } finally {
      vi.useRealTimers();
    }
  });

  it('marks a request whose dates were resolved against the clock to be kept a second at most, by the engine too', async () => {
    const input = (q: string) => ({ q, page: 1, perPage: 25 });
    const keepMs = async (caller: SearchCaller, q: string) => (await planImageSearch(depsWith(), caller, input(q))).request.keepMs;
    expect(await keepMs(anonymous(null), 'created_at.gte:3 days ago')).toBe(1000);
    expect(await keepMs(anonymous(null), 'created_at.gte:2020-01-01, safe')).toBeUndefined();
    // through the current filter's hidden expression
    expect(await keepMs(anonymous(filterRow({ hiddenComplexStr: 'first_seen_at.lt:1 hour ago' })), 'safe')).toBe(1000);
    expect(await keepMs(anonymous(filterRow({ hiddenComplexStr: 'score.lt:0' })), 'safe')).toBeUndefined();
    // a user's query, compiled for them each time
    const user = { id: 5, role: 'user', watchedTagIds: [], watchedImagesQueryStr: '', watchedImagesExcludeStr: '', noSpoileredInWatched: false } as unknown as UserRow;
    const keyed: SearchCaller = { user, currentFilter: async () => null };
    expect(await keepMs(keyed, 'created_at.gte:3 days ago')).toBe(1000);
    expect(await keepMs(keyed, 'safe')).toBeUndefined();
    const comments = await planSearch(depsWith(), anonymous(null), 'comments', 'created_at.gte:2 hours ago', { page: 1, perPage: 25 });
    expect(comments.request.keepMs).toBe(1000);
    // the anonymous request is the same object for that second, not for a minute
    const again = await planImageSearch(depsWith(), anonymous(null), input('created_at.gte:3 days ago'));
    expect(again.reused).toBe(true);
  });

  it("marks the workbench's searches the same way: through the query or the expression being written", async () => {
    const now = Date.now();
    const spec = (hidden: string): FilterSpec => ({ id: null, tagIds: { hidden: [], spoilered: [] }, complex: { hidden, spoilered: '' } });
    const under = async (q: string, hidden: string) =>
      (await planImagesUnderFilter(depsWith(), anonymous(null), spec(hidden), { q, page: 1, perPage: 25 }, now)).keepMs;
    expect(await under('safe', 'first_seen_at.lt:1 hour ago')).toBe(1000);
    expect(await under('created_at.gte:3 days ago', 'score.lt:0')).toBe(1000);
    expect(await under('safe', 'score.lt:0')).toBeUndefined();
    expect(await under('', '')).toBeUndefined();
    expect((await planFilterSample(depsWith(), anonymous(null), 'created_at.gte:3 days ago', 50)).keepMs).toBe(1000);
    expect((await planFilterSample(depsWith(), anonymous(null), undefined, 50)).keepMs).toBeUndefined();
  });

  it('refuses a live search without a query', async () => {
    await expect(planLiveImageQuery(depsWith(), anonymous(null), ' ')).rejects.toEqual(new SearchRequestError('q is required'));
    const live = await planLiveImageQuery(depsWith(), anonymous(null), 'safe');
    expect(live.filter).toBeNull();
  });
});
