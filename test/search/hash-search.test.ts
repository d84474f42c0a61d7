/**
 * `searchHashes` of the embedded engine against a brute-force scan: on random hashes (with near
 * copies, so that answers are not empty), for random queries and thresholds, the engine returns
 * exactly the documents within the distance, each at its smallest distance over the fields, in
 * order, only those the filter lets through. The oracle counts bits of BigInt XORs and shares no
 * code with the engine. Boards are large enough for the chunk tables to be built (and to have a
 * tail of terms added after the build), and they change between rounds: updates and deletes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IndexDocument } from '../../src/search/engine.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import { imagesMapping } from '../../src/search/indexes/images/mapping.js';

const hex = (x: bigint) => x.toString(16).padStart(16, '0');
const bitsOf = (x: bigint) => [...x.toString(2)].filter((c) => c === '1').length;

interface Doc {
  id: number;
  phash: bigint;
  chash: bigint;
  hidden: boolean;
}

function docOf(d: Doc): IndexDocument {
  return { id: d.id, phash: hex(d.phash), chash: hex(d.chash), hidden_from_users: d.hidden, approved: true };
}

/** A generator of 64-bit values from a seed (xorshift64*), and of values near a given one. */
function random64(seed: number) {
  let s = BigInt(seed) | 1n;
  const next = () => {
    s ^= s >> 12n;
    s ^= (s << 25n) & 0xffffffffffffffffn;
    s ^= s >> 27n;
    return (s * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn;
  };
  const near = (x: bigint, bits: number) => {
    let y = x;
    for (let k = 0; k < bits; k++) y ^= 1n << (next() % 64n);
    return y;
  };
  return { next, near };
}

function bruteForce(docs: Map<number, Doc>, q: { phash: bigint; chash: bigint }, max: number, visibleOnly: boolean) {
  const out: { id: number; distance: number }[] = [];
  for (const d of docs.values()) {
    if (visibleOnly && d.hidden) continue;
    const distance = Math.min(bitsOf(d.phash ^ q.phash), bitsOf(d.chash ^ q.chash));
    if (distance <= max) out.push({ id: d.id, distance });
  }
  return out.sort((a, b) => a.distance - b.distance || a.id - b.id);
}

describe('embedded searchHashes', () => {
  it('equals a brute-force scan on random hashes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 6000, max: 9000 }), async (seed, count) => {
        const r = random64(seed);
        const engine = new EmbeddedEngine();
        await engine.ensureIndex({ name: 'images', mapping: imagesMapping });
        const docs = new Map<number, Doc>();
        const put = (d: Doc) => docs.set(d.id, d);
        const bases: bigint[] = [];
        for (let id = 1; id <= count; id++) {
          // a third are near copies of earlier hashes, as re-uploads are
          const base = bases.length > 0 && r.next() % 3n === 0n ? r.near(bases[Number(r.next() % BigInt(bases.length))]!, Number(r.next() % 10n)) : r.next();
          bases.push(base);
          put({ id, phash: base, chash: r.near(base, Number(r.next() % 20n)), hidden: r.next() % 5n === 0n });
        }
        await engine.write('images', [...docs.values()].map(docOf));

        for (let round = 0; round < 3; round++) {
          for (let k = 0; k < 8; k++) {
            const target = bases[Number(r.next() % BigInt(bases.length))]!;
            const q = k % 4 === 3 ? { phash: r.next(), chash: r.next() } : { phash: r.near(target, k), chash: r.near(target, 2 * k) };
            const max = [0, 3, 7, 12, 20, 30][Number(r.next() % 6n)]!;
            const visibleOnly = k % 2 === 0;
            const expected = bruteForce(docs, q, max, visibleOnly);
            const got = await engine.searchHashes('images', {
              hashes: [
                { field: 'phash', value: hex(q.phash) },
                { field: 'chash', value: hex(q.chash) },
              ],
              maxDistance: max,
              ...(visibleOnly ? { filter: { bool: { must_not: [{ term: { hidden_from_users: true } }] } } } : {}),
              size: 100_000,
            });
            expect(got.total).toBe(expected.length);
            expect(got.hits).toEqual(expected);
            const page = await engine.searchHashes('images', { hashes: [{ field: 'phash', value: hex(q.phash) }], maxDistance: max, size: 5 });
            const byPhash = [...docs.values()]
              .map((d) => ({ id: d.id, distance: bitsOf(d.phash ^ q.phash) }))
              .filter((h) => h.distance <= max)
              .sort((a, b) => a.distance - b.distance || a.id - b.id);
            expect(page).toEqual({ hits: byPhash.slice(0, 5), total: byPhash.length });
          }
          // change the board: new near copies (terms after the tables were built), updates, deletes
          const changed: Doc[] = [];
          for (let k = 0; k < 700; k++) {
            const id = k % 2 === 0 ? count + round * 700 + k + 1 : 1 + Number(r.next() % BigInt(count));
            const base = r.near(bases[Number(r.next() % BigInt(bases.length))]!, Number(r.next() % 6n));
            bases.push(base);
            const d = { id, phash: base, chash: r.next(), hidden: r.next() % 4n === 0n };
            put(d);
            changed.push(d);
          }
          await engine.write('images', changed.map(docOf));
          const removed = Array.from({ length: 200 }, () => 1 + Number(r.next() % BigInt(count)));
          for (const id of removed) docs.delete(id);
          await engine.remove('images', removed);
        }
      }),
      { numRuns: 4 },
    );
  }, 120_000);

  it('compares every value of a field holding several hashes, each hash within its own maximum', async () => {
    const engine = new EmbeddedEngine();
    await engine.ensureIndex({ name: 'images', mapping: imagesMapping });
    const r = random64(77);
    const base = r.next();
    // bits flipped from the top: distances are exact
    const off = (x: bigint, bits: number) => x ^ (((1n << BigInt(bits)) - 1n) << BigInt(64 - bits));
    const docs = [
      { id: 1, approved: true, hidden_from_users: false, phash: hex(r.next()), rhash: [hex(r.next()), hex(off(base, 3)), hex(r.next())] },
      { id: 2, approved: true, hidden_from_users: false, phash: hex(off(base, 6)), rhash: [hex(r.next())] },
      { id: 3, approved: true, hidden_from_users: false, phash: hex(r.next()), rhash: [hex(off(base, 5)), hex(off(base, 1))] },
      { id: 4, approved: true, hidden_from_users: false, phash: hex(r.next()), rhash: [hex(off(base, 7))] },
    ];
    await engine.write('images', docs);
    const found = await engine.searchHashes('images', {
      hashes: [
        { field: 'phash', value: hex(base), maxDistance: 6 },
        { field: 'rhash', value: hex(base), maxDistance: 4 },
      ],
      maxDistance: 64,
      size: 10,
    });
    // 4 is 7 bits from the query in rhash, over that hash's maximum; 3 is at its closest value
    expect(found).toEqual({ hits: [{ id: 3, distance: 1 }, { id: 1, distance: 3 }, { id: 2, distance: 6 }], total: 3 });
  });

  it('refuses a malformed hash and a field that is not a keyword field; an unmapped field finds nothing', async () => {
    const engine = new EmbeddedEngine();
    await engine.ensureIndex({ name: 'images', mapping: imagesMapping });
    await expect(engine.searchHashes('images', { hashes: [{ field: 'phash', value: 'xyz' }], maxDistance: 4, size: 1 })).rejects.toThrow(/16 lowercase hex digits/);
    await expect(engine.searchHashes('images', { hashes: [{ field: 'score', value: '0000000000000000' }], maxDistance: 4, size: 1 })).rejects.toThrow(/not a keyword field/);
    // an index whose mapping predates the field answers nothing rather than failing
    await engine.ensureIndex({ name: 'old', mapping: { dynamic: false, properties: { id: { type: 'integer' } } } });
    await engine.write('old', [{ id: 1, phash: '0000000000000000' }]);
    expect(await engine.searchHashes('old', { hashes: [{ field: 'phash', value: '0000000000000000' }], maxDistance: 4, size: 1 })).toEqual({ hits: [], total: 0 });
  });
});
