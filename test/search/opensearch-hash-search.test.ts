/**
 * `searchHashes` on a live OpenSearch node (runs only when OPENSEARCH_URL is set, as CI does)
 * against the embedded engine on the same documents: chunk terms find the candidates, the script
 * verifies them, the filter applies, and both engines answer the same hits, distances and totals,
 * also for a field of several hashes (`rhash`) and hashes with maxima of their own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexDocument } from '../../src/search/engine.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import { chunkTerms } from '../../src/search/hash-chunks.js';
import { imagesMapping } from '../../src/search/indexes/images/mapping.js';
import { OpenSearchEngine } from '../../src/search/opensearch/index.js';
import { deleteIndices } from '../support/opensearch.js';

const url = process.env.OPENSEARCH_URL;
const prefix = `tagwise_hash_${process.pid}_${Date.now().toString(36)}_`;

/** A deterministic 64-bit value as 16 hex digits, and the same with some bits flipped. */
function hashOf(n: number): bigint {
  let x = BigInt(n) * 0x9e3779b97f4a7c15n;
  x ^= x >> 29n;
  x = (x * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
  return (x ^ (x >> 32n)) & 0xffffffffffffffffn;
}
const hex = (x: bigint) => x.toString(16).padStart(16, '0');
const flip = (x: bigint, bits: number[]) => bits.reduce((y, b) => y ^ (1n << BigInt(b)), x);

const docs: IndexDocument[] = [];
for (let id = 1; id <= 400; id++) {
  // every fourth document is a near copy of document 1 or 2, some hidden
  const base = id % 4 === 0 ? flip(hashOf(1 + (id % 8 === 0 ? 1 : 0)), [id % 64, (id * 7) % 64, (id * 13) % 64].slice(0, id % 3 + 1)) : hashOf(id);
  const phash = hex(base);
  const chash = hex(flip(base, [(id * 5) % 64]));
  const rhash = [hex(hashOf(id + 1000)), hex(flip(base, [(id * 3) % 64, (id * 11) % 64])), hex(hashOf(id + 2000))];
  docs.push({ id, approved: true, hidden_from_users: id % 12 === 0, phash, chash, rhash, phash_chunks: chunkTerms(phash), chash_chunks: chunkTerms(chash), rhash_chunks: rhash.flatMap(chunkTerms) });
}

describe.skipIf(!url)('searchHashes on OpenSearch', () => {
  let os: OpenSearchEngine;
  const embedded = new EmbeddedEngine();

  beforeAll(async () => {
    os = new OpenSearchEngine({ node: url!, indexPrefix: prefix, waitForRefresh: true });
    for (const engine of [os, embedded]) {
      await engine.ensureIndex({ name: 'images', mapping: imagesMapping });
      await engine.write('images', docs);
    }
  });

  afterAll(async () => {
    await os?.close();
    if (url) await deleteIndices(url, prefix);
  });

  it('answers as the embedded engine does', async () => {
    const filter = { bool: { must_not: [{ term: { hidden_from_users: true } }] } };
    let answered = 0;
    for (const q of [1, 2, 77].map(hashOf)) {
      for (const maxDistance of [0, 3, 6, 10, 20]) {
        for (const withFilter of [false, true]) {
          const request = {
            hashes: [
              { field: 'phash', value: hex(q) },
              { field: 'chash', value: hex(flip(q, [3, 40])) },
            ],
            maxDistance,
            ...(withFilter ? { filter } : {}),
            size: 30,
          };
          const expected = await embedded.searchHashes('images', request);
          expect(await os.searchHashes('images', request), `${hex(q)} ≤ ${maxDistance}`).toEqual(expected);
          if (expected.total > 1) answered++;
        }
      }
    }
    // the near copies were found, not only empty answers compared
    expect(answered).toBeGreaterThan(10);
  });

  it('answers as the embedded engine does for several hashes a document and maxima per hash', async () => {
    let answered = 0;
    for (const q of [1, 2, 77].map(hashOf)) {
      for (const maxDistance of [0, 4, 10]) {
        const request = {
          hashes: [
            { field: 'phash', value: hex(flip(q, [5, 9, 17, 33])), maxDistance },
            { field: 'rhash', value: hex(q), maxDistance: Math.floor(maxDistance / 2) },
            { field: 'rhash', value: hex(flip(q, [1])), maxDistance: Math.floor(maxDistance / 2) },
          ],
          maxDistance: 64,
          size: 30,
        };
        const expected = await embedded.searchHashes('images', request);
        expect(await os.searchHashes('images', request), `${hex(q)} ≤ ${maxDistance}`).toEqual(expected);
        if (expected.total > 1) answered++;
      }
    }
    expect(answered).toBeGreaterThan(2);
  });
});
