/**
 * The embedded engine on its own thread, as `npm start` runs it: the same answers as in process
 * (the whole conformance suite goes through the thread), calls taking effect in the order they
 * were made, errors with their messages, snapshots written on close and loaded by the next one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Query } from '../../grammar/index.js';
import { EmbeddedEngine, EngineThread } from '../../src/search/embedded/public.js';
import { imagesMapping } from '../../src/search/indexes/images/mapping.js';
import { conformanceMapping, runEngineConformance } from './conformance.js';

const threads: EngineThread[] = [];
const started = (dataDir?: string) => {
  const t = new EngineThread({ dataDir });
  threads.push(t);
  return t;
};
const dirs: string[] = [];
afterAll(async () => {
  await Promise.allSettled(threads.map((t) => t.close()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

runEngineConformance('engine thread', async () => started());

const spec = { name: 'images', mapping: conformanceMapping };
const q = (x: unknown) => x as Query;

describe('EngineThread', () => {
  it('applies calls in the order they were made, without waiting for each', async () => {
    const engine = started();
    await engine.ensureIndex(spec);
    const writes = Array.from({ length: 50 }, (_, i) => engine.write('images', [{ id: i + 1, tags: [`t${i % 3}`] }]));
    const removed = engine.remove('images', [1, 2]);
    const counted = engine.count('images');
    const found = engine.search('images', { query: q({ term: { tags: 't0' } }), sort: [{ id: 'asc' }], size: 100 });
    await Promise.all([...writes, removed]);
    expect(await counted).toBe(48);
    expect((await found).ids).toEqual(Array.from({ length: 50 }, (_, i) => i + 1).filter((id) => id > 2 && (id - 1) % 3 === 0));
    const docs = await engine.get('images', [3, 1]);
    expect(docs).toBeInstanceOf(Map);
    expect([...docs.keys()]).toEqual([3]);
  });

  it('answers hash searches as the engine in process does', async () => {
    const engine = started();
    const local = new EmbeddedEngine();
    const images = { name: 'images', mapping: imagesMapping };
    const docs = Array.from({ length: 40 }, (_, i) => ({ id: i + 1, phash: (BigInt(i) * 0x0101010101n).toString(16).padStart(16, '0'), hidden_from_users: i % 5 === 0 }));
    for (const e of [engine, local]) {
      await e.ensureIndex(images);
      await e.write('images', docs);
    }
    const request = { hashes: [{ field: 'phash', value: '0000000000000000' }], maxDistance: 12, filter: q({ bool: { must_not: [{ term: { hidden_from_users: true } }] } }), size: 10 };
    const answer = await engine.searchHashes('images', request);
    expect(answer.total).toBeGreaterThan(3);
    expect(answer).toEqual(await local.searchHashes('images', request));
  });

  it("reports the engine's errors with their messages", async () => {
    const engine = started();
    await expect(engine.search('nope', { query: q({ match_all: {} }) })).rejects.toThrow(/no such index \[nope\]/);
    await engine.ensureIndex(spec);
    await expect(engine.search('images', { query: q({ percolate: { field: 'x' } }) })).rejects.toThrow(/percolate/);
    await expect(engine.switchAlias('images', 'images_v9')).rejects.toThrow(/no such index \[images_v9\]/);
    expect(await engine.count('images')).toBe(0);
  });

  it('writes its snapshot on close; a new thread on the same directory answers the same; a closed one refuses', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-thread-'));
    dirs.push(dataDir);
    const first = new EngineThread({ dataDir });
    await first.ensureIndex(spec);
    await first.write('images', [{ id: 7, tags: ['kept'] }, { id: 8, tags: ['other'] }]);
    await first.close();
    await expect(first.count('images')).rejects.toThrow(/closed/);
    const second = started(dataDir);
    expect((await second.search('images', { query: q({ term: { tags: 'kept' } }) })).ids).toEqual([7]);
  });

  it('fails only the call whose arguments cannot be sent, of the calls made in one turn', async () => {
    const engine = started();
    await engine.ensureIndex(spec);
    const before = engine.write('images', [{ id: 1, tags: ['a'] }]);
    const unsendable = engine.write('images', [{ id: 2, tags: ['b'], bad: () => 1 } as never]);
    const after = engine.write('images', [{ id: 3, tags: ['a'] }]);
    const found = engine.search('images', { query: q({ term: { tags: 'a' } }), sort: [{ id: 'asc' }] });
    await expect(unsendable).rejects.toThrow(/could not be cloned/);
    await Promise.all([before, after]);
    expect(await found).toEqual({ ids: [1, 3], total: 2 });
    expect(await engine.count('images')).toBe(2);
  });

  it('answers the same request again the same, and a changed one by its new text', async () => {
    const engine = started();
    await engine.ensureIndex(spec);
    await engine.write('images', [1, 2, 3, 4].map((id) => ({ id, tags: id % 2 === 0 ? ['even'] : ['odd'] })));
    const request = { query: q({ term: { tags: 'even' } }), sort: [{ id: 'desc' as const }], size: 1 };
    const first = await engine.search('images', request);
    expect(await engine.search('images', request)).toEqual(first);
    expect(first).toEqual({ ids: [4], total: 2 });
    request.size = 2;
    expect(await engine.search('images', request)).toEqual({ ids: [4, 2], total: 2 });
    await engine.remove('images', [4]);
    expect(await engine.search('images', request)).toEqual({ ids: [2], total: 1 });
  });
});
