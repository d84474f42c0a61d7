/**
 * The embedded engine against a real OpenSearch node, which shares no code with it: the same
 * generated corpus goes into both, and every query (the conformance catalogue, random DSL trees,
 * and search strings compiled by the grammar for the images index) must give the same total and
 * the same ids in the same order, under sorts that end with the id (so the order is defined), on
 * the first page and on a deeper one. A query one side refuses must be refused by the other.
 *
 * Runs only when OPENSEARCH_URL is set. DIFF_SCALE sets the corpus size (default 3000 documents;
 * queries grow with it).
 *
 * Deliberate differences, not compared here: relevance scores of text queries (BM25 statistics
 * are Lucene's), and random order (OpenSearch salts random_score with the index and shard).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isQueryError, type Query, type QueryContext, type SortClause } from '../../grammar/index.js';
import { compileQuery } from '../../grammar/compiler.js';
import { EmbeddedEngine } from '../../src/search/embedded/index.js';
import type { SearchEngine, SearchRequest } from '../../src/search/engine.js';
import { queryFields } from '../../src/search/indexes/index.js';
import { imagesMapping } from '../../src/search/indexes/images/mapping.js';
import { OpenSearchEngine } from '../../src/search/opensearch/index.js';
import { deleteIndices } from '../support/opensearch.js';
import { conformanceMapping, dslTreeArb, makeCorpus, queryCatalogue, TAG_NAMES } from './conformance.js';

const url = process.env.OPENSEARCH_URL;
const scale = Number(process.env.DIFF_SCALE ?? 3000);
const prefix = `tagwise_diff_${process.pid}_${Date.now().toString(36)}_`;

/** Sorts that end with the id, so both engines must agree on the whole order. */
const SORTS: SortClause[][] = [
  [{ id: 'asc' }],
  [{ score: 'desc' }, { id: 'desc' }],
  [{ width: 'asc' }, { id: 'asc' }],
  [{ first_seen_at: 'desc' }, { id: 'desc' }],
  [{ created_at: 'asc' }, { id: 'desc' }],
  [{ aspect_ratio: 'desc' }, { id: 'asc' }],
  [{ duration: 'asc' }, { id: 'asc' }],
  [{ duration: { order: 'desc', missing: '_first' } }, { id: 'asc' }],
  [{ tags: 'asc' }, { id: 'asc' }],
  [{ uploader: 'desc' }, { id: 'desc' }],
  [{ animated: 'desc' }, { comment_count: 'asc' }, { id: 'asc' }],
];

/** Search strings in the grammar over the images fields, built from a seeded generator. */
function grammarQueries(count: number, seed: number): string[] {
  let s = seed >>> 0 || 1;
  const random = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4_294_967_296;
  };
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const ops = ['gt', 'gte', 'lt', 'lte'];
  const leaves: (() => string)[] = [
    () => pick(TAG_NAMES),
    () => `${pick(TAG_NAMES).slice(0, 1 + int(4))}*`,
    () => `${pick(TAG_NAMES).replace(/^(.)./, '$1?')}`,
    () => `score.${pick(ops)}:${int(200) - 50}`,
    () => `width.${pick(ops)}:${100 + int(3000)}`,
    () => `upvotes:${int(150)}`,
    () => `comment_count:${int(5)}`,
    () => `aspect_ratio.${pick(ops)}:${(0.2 + random() * 3).toFixed(2)}`,
    () => `duration.${pick(ops)}:${(random() * 60).toFixed(1)}`,
    () => `created_at.${pick(ops)}:${2014 + int(12)}-${String(1 + int(12)).padStart(2, '0')}`,
    () => `first_seen_at.${pick(ops)}:${1 + int(4000)} days ago`,
    () => `animated:${pick(['true', 'false'])}`,
    () => `uploader:user${int(40)}`,
    () => `faved_by_id:${int(30)}`,
    () => `mime_type:${pick(['image/gif', 'video/webm', 'image/png', 'image/jpeg', 'image/svg+xml'])}`,
    () => `file_name:${pick(['img', 'pic', 'dsc', 'screenshot'])}*`,
    () => `description:${pick(['pony', 'happy', 'running', 'fox', 'ponies'])}`,
    () => `gallery_id:${1 + int(12)}`,
    () => `ip:10.${int(4)}.0.0/16`,
    () => `id.${pick(ops)}:${1 + int(scale)}`,
  ];
  const expr = (depth: number): string => {
    const k = depth > 2 ? 0 : int(6);
    if (k <= 2) return pick(leaves)();
    if (k === 3) return `-${expr(depth + 1)}`;
    return `(${expr(depth + 1)} ${pick([',', ' OR ', ' AND ', ' || '])} ${expr(depth + 1)})`;
  };
  return Array.from({ length: count }, () => expr(0));
}

const context: QueryContext = { userId: 1, now: Date.now() };

interface Outcome {
  total?: number;
  ids?: number[];
  error?: string;
}

async function outcome(engine: SearchEngine, index: string, request: SearchRequest): Promise<Outcome> {
  try {
    return await engine.search(index, request);
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

describe.skipIf(!url)('the embedded engine and OpenSearch agree', () => {
  const docs = makeCorpus(scale, 7);
  const embedded = new EmbeddedEngine();
  let opensearch: OpenSearchEngine;
  let compared = 0;

  beforeAll(async () => {
    opensearch = new OpenSearchEngine({ node: url!, indexPrefix: prefix, waitForRefresh: true });
    for (const engine of [embedded, opensearch] as SearchEngine[]) {
      for (const [name, mapping] of [['diff_dsl', conformanceMapping], ['diff_images', imagesMapping]] as const) {
        await engine.ensureIndex({ name, mapping });
        for (let i = 0; i < docs.length; i += 1000) await engine.write(name, docs.slice(i, i + 1000));
      }
    }
  }, 600_000);

  afterAll(async () => {
    console.log(`differential: ${compared} requests compared on ${docs.length} documents`);
    await opensearch?.close();
    await embedded.close();
    await deleteIndices(url!, prefix);
  });

  /** Both engines on one query under one sort: the whole first page and a deeper one. */
  async function agree(index: string, query: Query, sort: SortClause[], label: string): Promise<void> {
    for (const [from, size] of [[0, 100], [Math.floor(docs.length / 3), 25]] as const) {
      const request: SearchRequest = { query, sort, from, size };
      const [a, b] = await Promise.all([outcome(embedded, index, request), outcome(opensearch, index, request)]);
      compared++;
      const where = `${label} ${JSON.stringify(request)}`;
      if (a.error !== undefined || b.error !== undefined) {
        expect({ embedded: a.error !== undefined, opensearch: b.error !== undefined }, `${where}\n${a.error ?? ''}\n${b.error ?? ''}`).toEqual({
          embedded: true,
          opensearch: true,
        });
        return;
      }
      expect(a.total, `total of ${where}`).toBe(b.total);
      expect(a.ids, `ids of ${where}`).toEqual(b.ids);
    }
  }

  it('on every query of the conformance catalogue, under several sorts', async () => {
    const catalogue = queryCatalogue(docs);
    const sortsEach = scale > 3000 ? SORTS.length : 3;
    for (const [i, [label, query]] of catalogue.entries()) {
      for (let k = 0; k < sortsEach; k++) await agree('diff_dsl', query, SORTS[(i + k) % SORTS.length]!, label);
    }
  }, 600_000);

  it('on random DSL trees', async () => {
    const trees = fc.sample(dslTreeArb(docs), { numRuns: Math.max(200, Math.round(scale / 10)), seed: 20251125 });
    for (const [i, query] of trees.entries()) await agree('diff_dsl', query, SORTS[i % SORTS.length]!, `tree ${i}`);
  }, 600_000);

  it('on search strings compiled by the grammar for the images index', async () => {
    const strings = grammarQueries(Math.max(400, Math.round(scale / 5)), 20251125);
    const refused: string[] = [];
    for (const [i, text] of strings.entries()) {
      let query: Query;
      try {
        query = compileQuery(text, { fields: queryFields.images, role: 'moderator', context });
      } catch (error) {
        if (!isQueryError(error)) throw error;
        refused.push(`${text}: ${error.message}`);
        continue;
      }
      await agree('diff_images', query, SORTS[i % SORTS.length]!, JSON.stringify(text));
    }
    // The generator writes valid syntax; the grammar may refuse only a few (e.g. a tag it cleans to nothing).
    expect(refused.length, refused.slice(0, 5).join('\n')).toBeLessThan(strings.length / 20);
  }, 600_000);
});
