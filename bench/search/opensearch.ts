/**
 * The OpenSearch side of the search benchmark: the same images reindexed into a real node through
 * the same indexer, then the same query mix, timed the same way, with its answers compared with
 * the embedded engine's. Its indices carry a prefix of their own and are deleted at the end.
 *
 * Each kind is timed twice: as the service runs it (the shard request cache answers a search
 * asked before, as the embedded engine's result cache does on its side), and with that cache
 * off, every search run against the index: the engine's own cost, what a search nobody asked
 * since the last change pays.
 */
import { Client } from '@opensearch-project/opensearch';
import { Indexer } from '../../indexer/index.js';
import type { Database } from '../../src/db/client.js';
import type { SearchEngine, SearchResult } from '../../src/search/engine.js';
import { OpenSearchEngine } from '../../src/search/opensearch/index.js';
import type { MixQuery } from './mix.js';
import { ascending, loadAverage } from '../harness/stats.js';

export interface OpenSearchKind {
  kind: string;
  times: number[];
  /** The same runs with the shard request cache off. */
  uncached: number[];
  sameTotal: number;
  sameIds: number;
  compared: number;
}

export interface OpenSearchSide {
  docs: number;
  reindexS: number;
  kinds: OpenSearchKind[];
}

export interface OpenSearchBenchInput {
  url: string;
  db: Database;
  queries: MixQuery[];
  kinds: string[];
  runs: number;
  /** The embedded engine's answer to each query, to compare with. */
  embeddedAnswers: Map<MixQuery, SearchResult>;
  /** Runs one mix query on an engine, as the embedded side runs it. */
  search: (engine: SearchEngine, m: MixQuery) => Promise<SearchResult>;
  log: (m: string) => void;
}

export async function benchOpenSearch(input: OpenSearchBenchInput): Promise<OpenSearchSide> {
  const prefix = `tagwise_bench_${process.pid}_`;
  const engine = new OpenSearchEngine({ node: input.url, indexPrefix: prefix });
  const uncachedEngine = new OpenSearchEngine({ node: input.url, indexPrefix: prefix, requestCache: false });
  try {
    const indexer = new Indexer({ db: input.db, engine });
    await indexer.ensureIndexes(['images']);
    input.log(`  OpenSearch: reindex of the images at ${input.url} (load ${loadAverage()})`);
    const t0 = performance.now();
    const [result] = await indexer.reindex(['images'], {
      onProgress: (p) => {
        if (p.phase === 'loading' && p.done % 100_000 < 5000) input.log(`  OpenSearch reindex ${p.done}/${p.total}, ${p.docsPerSecond}/s`);
      },
    });
    const reindexS = (performance.now() - t0) / 1000;
    const kinds: OpenSearchKind[] = [];
    for (const kind of input.kinds) {
      const qs = input.queries.filter((q) => q.kind === kind);
      input.log(`  OpenSearch ${kind}: ${input.runs} runs (load ${loadAverage()})`);
      let sameTotal = 0;
      let sameIds = 0;
      for (const q of qs) {
        const mine = await input.search(engine, q);
        const theirs = input.embeddedAnswers.get(q)!;
        if (mine.total === theirs.total) sameTotal++;
        // random order is each engine's own permutation (OpenSearch salts it with the index)
        if (!q.sf?.startsWith('random:') && JSON.stringify(mine.ids) === JSON.stringify(theirs.ids)) sameIds++;
      }
      for (const q of qs) await input.search(engine, q);
      const timed = async (on: SearchEngine) => {
        const times: number[] = [];
        for (let i = 0; i < input.runs; i++) {
          const s0 = performance.now();
          await input.search(on, qs[i % qs.length]!);
          times.push(performance.now() - s0);
        }
        return ascending(times);
      };
      const times = await timed(engine);
      const uncached = await timed(uncachedEngine);
      kinds.push({ kind, times, uncached, sameTotal, sameIds, compared: qs.length });
    }
    return { docs: result?.docs ?? 0, reindexS, kinds };
  } finally {
    await engine.close();
    await uncachedEngine.close();
    const admin = new Client({ node: input.url });
    const res = await admin.cat.indices({ index: `${prefix}*`, format: 'json', h: ['index'] });
    const names = (res.body as { index?: string }[]).map((r) => r.index).filter((n): n is string => !!n);
    if (names.length > 0) await admin.indices.delete({ index: names });
    await admin.close();
  }
}
