import { appendFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Query, SortClause } from '../../grammar/index.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import type { IndexDocument, SearchRequest } from '../../src/search/engine.js';
import { bruteForce, conformanceMapping, makeCorpus, queryCatalogue } from './conformance.js';

const q = (x: unknown) => x as Query;
const spec = { name: 'images', mapping: conformanceMapping };
const byId: SortClause[] = [{ id: 'asc' }];
const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tagwise-embedded-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function loaded(docs: IndexDocument[], dataDir?: string): Promise<EmbeddedEngine> {
  const engine = new EmbeddedEngine({ dataDir });
  await engine.ensureIndex(spec);
  for (let i = 0; i < docs.length; i += 400) await engine.write('images', docs.slice(i, i + 400));
  return engine;
}

async function ids(engine: EmbeddedEngine, index: string, query: unknown, sort: SortClause[] = byId): Promise<number[]> {
  return (await engine.search(index, { query: q(query), sort, size: 100_000 })).ids;
}

describe('EmbeddedEngine basics', () => {
  it('ensureIndex creates <name>_v1 behind the alias, once', async () => {
    const engine = new EmbeddedEngine();
    await engine.ensureIndex(spec);
    await engine.ensureIndex(spec);
    await engine.write('images', [{ id: 1, tags: ['a'] }]);
    expect(await engine.count('images')).toBe(1);
    expect(await engine.count('images_v1')).toBe(1);
    expect(await engine.createVersion(spec)).toBe('images_v2');
    await expect(engine.search('nope', { query: q({ match_all: {} }) })).rejects.toThrow(/no such index/);
  });

  it('search defaults: match_all, size 10, order by _score then index order', async () => {
    const engine = await loaded(makeCorpus(30));
    const r = await engine.search('images', { query: q({ match_all: {} }) });
    expect(r.total).toBe(30);
    expect(r.ids).toHaveLength(10);
  });

  it('get returns the documents as written', async () => {
    const docs: IndexDocument[] = [
      ...makeCorpus(50),
      {
        id: 1000,
        tags: [],
        tag_ids: [5, '6', null],
        uploader: null,
        score: '12',
        created_at: '2024-05-06T07:08:09Z',
        first_seen_at: '2024-05-06T07:08:09.123Z',
        animated: 'true',
        description: ['two', 'values'],
        galleries: { id: 4, position: 2 },
        image: { tag_ids: [1], extra: { deep: true } },
        unmapped: { anything: [1, 'two'] },
      },
      { id: 1001, image: null, galleries: [], width: 2.5, aspect_ratio: 1.1, created_at: new Date(Date.UTC(2020, 1, 2)) },
    ];
    const engine = await loaded(docs);
    const got = await engine.get('images', [...docs.map((d) => d.id), 424242]);
    expect(got.size).toBe(docs.length);
    for (const d of docs) expect(got.get(d.id)).toEqual(d);
  });

  it('rejects documents OpenSearch would reject, keeping the old version and the others', async () => {
    const engine = await loaded([{ id: 1, score: 5, tags: ['a'] }]);
    await expect(
      engine.write('images', [
        { id: 1, score: 'many', tags: ['b'] },
        { id: 2, score: 3, tags: ['c'] },
        { id: 3, ip: 'not an ip' },
      ]),
    ).rejects.toThrow(/2 document\(s\) failed.*score.*ip/s);
    expect(await ids(engine, 'images', { match_all: {} })).toEqual([1, 2]);
    expect(await ids(engine, 'images', { term: { tags: 'a' } })).toEqual([1]);
    expect(await ids(engine, 'images', { term: { tags: 'b' } })).toEqual([]);
  });

  it('raises an error naming an unsupported query kind or option', async () => {
    const engine = await loaded(makeCorpus(10));
    await expect(engine.search('images', { query: q({ script: { script: 'x' } }) })).rejects.toThrow(/Unsupported query kind: script/);
    await expect(engine.search('images', { query: q({ term: { tags: 'a' }, match_all: {} }) })).rejects.toThrow(/exactly one kind/);
    await expect(
      engine.search('images', { query: q({ function_score: { query: { match_all: {} }, field_value_factor: { field: 'score' } } }), sort: ['_score'] }),
    ).rejects.toThrow(/field_value_factor/);
    await expect(engine.search('images', { query: q({ range: { score: { gte: 'high' } } }) })).rejects.toThrow(/number/);
    await expect(engine.search('images', { query: q({ match_all: {} }), sort: [{ description: 'asc' }] })).rejects.toThrow(/sort/);
  });
});

describe('deletes and updates', () => {
  it('deletes are tombstones; updates replace; counts, totals and queries follow', async () => {
    const docs = makeCorpus(1200);
    const engine = await loaded(docs);
    const current = new Map(docs.map((d) => [d.id, d]));
    // delete every 7th, update every 5th (new tags, new score), re-add a deleted one
    const deleted = docs.filter((d) => d.id % 7 === 0).map((d) => d.id);
    await engine.remove('images', [...deleted, 999_999]);
    for (const id of deleted) current.delete(id);
    const updates = docs.filter((d) => d.id % 5 === 0 && d.id % 7 !== 0).map((d) => ({ ...d, tags: ['updated'], tag_ids: [777], score: 1000 + d.id }));
    await engine.write('images', updates);
    for (const u of updates) current.set(u.id, u);
    const back = { ...docs[6]!, tags: ['back'] };
    await engine.write('images', [back]);
    current.set(back.id, back);
    const live = [...current.values()].sort((a, b) => a.id - b.id);

    expect(await engine.count('images')).toBe(live.length);
    for (const [label, query] of queryCatalogue(docs).slice(0, 40)) {
      const request: SearchRequest = { query, sort: byId };
      expect(await ids(engine, 'images', query), label).toEqual(bruteForce(live, request));
    }
    expect(await ids(engine, 'images', { term: { tag_ids: 777 } })).toEqual(updates.map((u) => u.id));
    expect(await ids(engine, 'images', { term: { tags: 'back' } })).toEqual([back.id]);
    const sort: SortClause[] = [{ score: 'desc' }, { id: 'asc' }];
    expect((await engine.search('images', { query: q({ match_all: {} }), sort, size: 20 })).ids).toEqual(
      bruteForce(live, { query: q({ match_all: {} }), sort }).slice(0, 20),
    );
    const got = await engine.get('images', [deleted[1]!, updates[0]!.id]);
    expect(got.has(deleted[1]!)).toBe(false);
    expect(got.get(updates[0]!.id)).toEqual(updates[0]);
  });

  it('a remembered filter result follows writes and deletes', async () => {
    const engine = await loaded([{ id: 1, tag_ids: [1] }, { id: 2, tag_ids: [2] }]);
    const filter = { bool: { must_not: { terms: { tag_ids: [1, 3, 5, 7, 9] } } } };
    expect(await ids(engine, 'images', filter)).toEqual([2]);
    await engine.write('images', [{ id: 3, tag_ids: [3] }, { id: 4, tag_ids: [4] }]);
    expect(await ids(engine, 'images', filter)).toEqual([2, 4]);
    await engine.write('images', [{ id: 1, tag_ids: [8] }]);
    await engine.remove('images', [4]);
    expect(await ids(engine, 'images', filter)).toEqual([1, 2]);
  });

  it("a listing's remembered exclusions follow writes; the clock's are never remembered", async () => {
    const hour = 3600_000;
    const t0 = Date.parse('2026-01-01T12:00:00Z');
    const engine = await loaded([
      { id: 1, tag_ids: [1], animated: false, created_at: new Date(t0).toISOString() },
      { id: 2, tag_ids: [2], animated: false, created_at: new Date(t0 - 5 * hour).toISOString() },
      { id: 3, tag_ids: [3], animated: true, created_at: new Date(t0 - 5 * hour).toISOString() },
    ]);
    const listing = { bool: { must: { match_all: {} }, must_not: [{ term: { animated: true } }, { bool: { should: [{ terms: { tag_ids: [2, 9] } }] } }] } };
    expect(await ids(engine, 'images', listing)).toEqual([1]);
    await engine.write('images', [{ id: 2, tag_ids: [4], animated: false }, { id: 3, tag_ids: [3], animated: false }]);
    expect(await ids(engine, 'images', listing)).toEqual([1, 2, 3]);
    await engine.write('images', [{ id: 1, tag_ids: [9], animated: false, created_at: new Date(t0).toISOString() }]);
    expect(await ids(engine, 'images', listing)).toEqual([2, 3]);

    const recent = { bool: { must: { match_all: {} }, must_not: [{ range: { created_at: { gte: 'now-1h' } } }, { term: { animated: true } }] } };
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(t0 + hour / 2);
      expect(await ids(engine, 'images', recent)).toEqual([2, 3]);
      vi.setSystemTime(t0 + 2 * hour);
      expect(await ids(engine, 'images', recent)).toEqual([1, 2, 3]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a remembered numeric range follows writes and deletes; one on the clock moves with it', async () => {
    const hour = 3600_000;
    const t0 = Date.parse('2026-01-01T12:00:00Z');
    const engine = await loaded([
      { id: 1, score: 5, created_at: new Date(t0).toISOString() },
      { id: 2, score: 50, created_at: new Date(t0 - 5 * hour).toISOString() },
      { id: 3, score: 500, created_at: new Date(t0 - 5 * hour).toISOString() },
    ]);
    const high = { bool: { must: [{ match_all: {} }, { range: { score: { gte: 40 } } }] } };
    expect(await ids(engine, 'images', high)).toEqual([2, 3]);
    expect(await ids(engine, 'images', high)).toEqual([2, 3]);
    await engine.write('images', [{ id: 1, score: 45, created_at: new Date(t0).toISOString() }, { id: 3, score: 4 }]);
    expect(await ids(engine, 'images', high)).toEqual([1, 2]);
    await engine.remove('images', [2]);
    expect(await ids(engine, 'images', high)).toEqual([1]);

    const recent = { bool: { must: [{ match_all: {} }, { range: { created_at: { gte: 'now-1h' } } }] } };
    await engine.write('images', [{ id: 2, score: 50, created_at: new Date(t0 - 5 * hour).toISOString() }]);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(t0 - 4.5 * hour);
      expect(await ids(engine, 'images', recent)).toEqual([1, 2]);
      vi.setSystemTime(t0 + hour / 2);
      expect(await ids(engine, 'images', recent)).toEqual([1]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('compacts when tombstones pile up, with the same answers', async () => {
    const docs = makeCorpus(16_000);
    const engine = await loaded(docs);
    const before = engine.byteSize('images');
    const gone = docs.filter((d) => d.id % 2 === 0).map((d) => d.id);
    await engine.remove('images', gone);
    const live = docs.filter((d) => d.id % 2 === 1);
    expect(await engine.count('images')).toBe(live.length);
    expect(engine.byteSize('images')).toBeLessThan(before);
    for (const [label, query] of queryCatalogue(docs).slice(40, 70)) {
      expect(await ids(engine, 'images', query), label).toEqual(bruteForce(live, { query, sort: byId }));
    }
  });
});

describe('aliases and versions', () => {
  it('switchAlias swaps atomically while searches run, and drops the old version', async () => {
    const v1docs = makeCorpus(2000, 1);
    const engine = await loaded(v1docs);
    const query = q({ bool: { must: { term: { tags: 'safe' } }, must_not: { term: { animated: true } } } });
    const sort: SortClause[] = [{ first_seen_at: 'desc' }, { id: 'desc' }];
    const v1answer = bruteForce(v1docs, { query, sort }).slice(0, 25);

    const v2 = await engine.createVersion(spec);
    expect(v2).toBe('images_v2');
    const v2docs = makeCorpus(2500, 2);
    const v2answer = bruteForce(v2docs, { query, sort }).slice(0, 25);
    expect(v2answer).not.toEqual(v1answer);

    // searches keep going while the new version is built and swapped in
    let stop = false;
    const seen: number[][] = [];
    const searcher = (async () => {
      while (!stop) {
        seen.push((await engine.search('images', { query, sort, size: 25 })).ids);
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let i = 0; i < v2docs.length; i += 100) {
      await engine.write(v2, v2docs.slice(i, i + 100));
      await new Promise((r) => setImmediate(r));
    }
    await engine.switchAlias('images', v2);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    stop = true;
    await searcher;

    // every answer is one version's full answer, never a mixture; v1 before v2
    expect(seen.length).toBeGreaterThan(5);
    const kinds = seen.map((ids) => (JSON.stringify(ids) === JSON.stringify(v1answer) ? 1 : JSON.stringify(ids) === JSON.stringify(v2answer) ? 2 : 0));
    expect(kinds).not.toContain(0);
    expect(kinds.indexOf(2)).toBeGreaterThan(0);
    expect(kinds.slice(kinds.indexOf(2))).not.toContain(1);
    expect(await engine.count('images')).toBe(v2docs.length);
    await expect(engine.count('images_v1')).rejects.toThrow(/no such index/);
    expect(await engine.createVersion(spec)).toBe('images_v3');
  });
});

describe('snapshots', () => {
  it('flush then a new engine on the same directory gives the same answers', async () => {
    const dir = tempDir();
    const docs = makeCorpus(1500, 9);
    const engine = await loaded(docs, dir);
    await engine.remove('images', [3, 4, 5]);
    await engine.write('images', [{ ...docs[9]!, tags: ['rewritten'] }]);
    await engine.ensureIndex({ name: 'others', mapping: { dynamic: false, properties: { id: { type: 'integer' }, name: { type: 'keyword' } } } });
    await engine.write('others', [{ id: 1, name: 'x' }]);
    await engine.flush();
    expect(readdirSync(join(dir, 'index')).sort()).toEqual(['aliases.json', 'images_v1.snap', 'others_v1.snap']);

    const reopened = new EmbeddedEngine({ dataDir: dir });
    await reopened.open();
    expect(await reopened.count('images')).toBe(await engine.count('images'));
    const requests: SearchRequest[] = [
      ...queryCatalogue(docs).map(([, query]) => ({ query, sort: byId, size: 5000 })),
      { query: q({ match_all: {} }), sort: [{ first_seen_at: 'desc' }, { id: 'desc' }], size: 40 },
      { query: q({ function_score: { random_score: { seed: 7, field: 'id' }, boost_mode: 'replace' } }), sort: [{ _score: 'desc' }, { id: 'desc' }], size: 40 },
      {
        query: q({ nested: { path: 'galleries', query: { term: { 'galleries.id': 5 } } } }),
        sort: [{ 'galleries.position': { order: 'asc', nested: { path: 'galleries', filter: { term: { 'galleries.id': 5 } } } } }, { id: 'desc' }] as SortClause[],
      },
    ];
    for (const r of requests) expect(await reopened.search('images', r)).toEqual(await engine.search('images', r));
    const someIds = docs.slice(0, 30).map((d) => d.id);
    expect(await reopened.get('images', someIds)).toEqual(await engine.get('images', someIds));
    expect((await reopened.search('others', { query: q({ term: { name: 'x' } }) })).ids).toEqual([1]);

    // the reopened engine keeps working: writes, new terms, a version switch, another flush
    await reopened.write('images', [{ id: 50_000, tags: ['brand new'], score: 1 }]);
    expect(await ids(reopened, 'images', { wildcard: { tags: 'brand*' } })).toEqual([50_000]);
    const v2 = await reopened.createVersion(spec);
    await reopened.write(v2, [{ id: 1, tags: ['only'] }]);
    await reopened.switchAlias('images', v2);
    await reopened.close();
    expect(readdirSync(join(dir, 'index')).sort()).toEqual(['aliases.json', 'images_v2.snap', 'others_v1.snap']);
    const third = new EmbeddedEngine({ dataDir: dir });
    expect(await ids(third, 'images', { match_all: {} })).toEqual([1]);
  });

  it('small changes go to a change log on top of the snapshot; many changes make a new snapshot', async () => {
    const dir = tempDir();
    const docs = makeCorpus(3000, 11);
    const engine = await loaded(docs, dir);
    await engine.flush();
    const files = () => readdirSync(join(dir, 'index')).sort();
    expect(files()).toEqual(['aliases.json', 'images_v1.snap']);
    const snapSize = statSync(join(dir, 'index', 'images_v1.snap')).size;

    const current = new Map(docs.map((d) => [d.id, d]));
    const change = async (n: number, round: number, start = round * n) => {
      const updates = docs.slice(start, start + n).map((d) => ({ ...d, tags: [`round ${round}`], score: round }));
      await engine.write('images', updates);
      for (const u of updates) current.set(u.id, u);
      const gone = [docs[2000 + round]!.id];
      await engine.remove('images', gone);
      for (const id of gone) current.delete(id);
      await engine.flush();
    };
    await change(40, 1);
    await change(40, 2);
    expect(files()).toHaveLength(3);
    expect(files().find((f) => f.endsWith('.log'))).toMatch(/^images_v1\..+\.log$/);
    expect(statSync(join(dir, 'index', 'images_v1.snap')).size).toBe(snapSize);

    const check = async () => {
      const reopened = new EmbeddedEngine({ dataDir: dir });
      await reopened.open();
      const live = [...current.values()].sort((a, b) => a.id - b.id);
      expect(await reopened.count('images')).toBe(live.length);
      for (const [label, query] of queryCatalogue(docs).slice(0, 30)) {
        expect(await ids(reopened, 'images', query), label).toEqual(bruteForce(live, { query, sort: byId }));
      }
      expect(await ids(reopened, 'images', { term: { tags: 'round 2' } })).toEqual(docs.slice(80, 120).map((d) => d.id));
      const some = [1, 45, 85, 2001, 2002];
      expect(await reopened.get('images', some)).toEqual(await engine.get('images', some));
    };
    await check();

    // a torn last line (a crash while appending) is ignored
    const log = files().find((f) => f.endsWith('.log'))!;
    appendFileSync(join(dir, 'index', log), '{"w": {"id": 99999');
    await check();

    // enough changes for a new snapshot: a new generation, the old log gone
    await change(1100, 3, 1200);
    const after = files();
    expect(after.filter((f) => f.endsWith('.log'))).toEqual([]);
    expect(after).toEqual(['aliases.json', 'images_v1.snap']);
    await check();
  });

  it('without a data directory, flush is a no-op', async () => {
    const engine = await loaded(makeCorpus(5));
    await engine.flush();
    await engine.close();
  });
});
