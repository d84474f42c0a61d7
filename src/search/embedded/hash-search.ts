import type { HashSearchRequest, HashSearchResult } from '../engine.js';
import type { PhysicalIndex } from './index/physical-index.js';
import { Executor, type Scope } from './query/execute.js';
import { outsideSearchMemory, withSearchMemory } from './search-memory.js';
import type { TermDictionary } from './terms/term-dictionary.js';
import { HammingTable, parseHash64 } from './terms/hamming-table.js';

/** One table per dictionary, built on the first search of its field and kept up to date by it. */
const tables = new WeakMap<TermDictionary, HammingTable>();

function tableOf(dict: TermDictionary): HammingTable {
  let table = tables.get(dict);
  if (table === undefined) {
    table = new HammingTable(dict);
    tables.set(dict, table);
  }
  return table;
}

/**
 * A hash search on one physical index: the filter's documents first (as a search computes them),
 * then the terms near each hash, their live documents inside the filter, each at its smallest
 * distance; closest first, then by id.
 */
export function searchIndexHashes(index: PhysicalIndex, request: HashSearchRequest, now = Date.now()): HashSearchResult {
  if (!Number.isInteger(request.size) || request.size < 0) throw new Error(`[size] must be a non-negative integer, got ${String(request.size)}`);
  const best = new Map<number, number>();
  withSearchMemory(() => {
    const scope: Scope = { set: index.root, universe: index.live, index, nestedPath: null };
    const allowed = request.filter === undefined ? index.live : new Executor(now, false).run(request.filter, scope).bits.and(index.live);
    for (const { field, value, maxDistance = request.maxDistance } of request.hashes) {
      const hash = parseHash64(value);
      if (hash === null) throw new Error(`[${field}] the hash must be 16 lowercase hex digits, got ${JSON.stringify(value)}`);
      const f = index.root.byPath.get(field);
      // an index built before the field was mapped holds no such hashes (as OpenSearch answers)
      if (f === undefined) continue;
      if (f.kind !== 'keyword') throw new Error(`[${field}] is not a keyword field of [${index.name}]`);
      // the table outlives the search: its arrays are built outside the search's memory
      outsideSearchMemory(() =>
        tableOf(f.dict).within(hash, maxDistance, (ord, distance) => {
          f.dict.forEachDoc(ord, (doc) => {
            if (!allowed.has(doc)) return;
            const previous = best.get(doc);
            if (previous === undefined || distance < previous) best.set(doc, distance);
          });
        }),
      );
    }
  });
  const hits = [...best].map(([doc, distance]) => ({ id: index.ids[doc]!, distance }));
  hits.sort((a, b) => a.distance - b.distance || a.id - b.id);
  return { hits: hits.slice(0, request.size), total: hits.length };
}
