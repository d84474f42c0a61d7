import type { SearchRequest, SearchResult } from '../engine.js';
import { Executor, type Scope } from './query/execute.js';
import type { PhysicalIndex } from './index/physical-index.js';
import { withSearchMemory } from './search-memory.js';
import { buildSortKeys, sortNeedsScores, topK } from './collector/sort.js';

function pageParam(v: unknown, name: string, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Error(`[${name}] must be a non-negative integer, got ${String(v)}`);
  return v;
}

/** One search on one physical index: matching bitmap, exact total, the page in sort order. */
export function searchIndex(index: PhysicalIndex, request: SearchRequest, now = Date.now()): SearchResult {
  return withSearchMemory(() => pageOf(index, request, now));
}

function pageOf(index: PhysicalIndex, request: SearchRequest, now: number): SearchResult {
  const from = pageParam(request.from, 'from', 0);
  const size = pageParam(request.size, 'size', 10);
  const executor = new Executor(now, sortNeedsScores(request.sort));
  const scope: Scope = { set: index.root, universe: index.live, index, nestedPath: null };
  const hits = executor.run(request.query ?? { match_all: {} }, scope);
  const bits = hits.bits === index.live ? index.live : hits.bits.and(index.live);
  const total = bits.size;
  if (size === 0 || from >= total) return { ids: [], total };
  const keys = buildSortKeys(request.sort, index, hits.score, executor, index.live);
  const docs = topK(bits, total, keys, from, size, index.docCount);
  return { ids: docs.map((d) => index.ids[d]!), total };
}
