import { BoundedMap } from '../../../lib/bounded-map.js';
import type { CacheCounts, CacheRegistry } from '../../../lib/cache-registry.js';
import type { Bitmap } from '../postings/bitmap.js';
import type { PhysicalIndex } from '../index/physical-index.js';
import { outsideSearchMemory } from '../search-memory.js';

/*
 * Sets worth remembering per index (long `terms` filters, numeric ranges, a listing's
 * exclusions). Each set holds exactly the documents its clause matches among every document
 * number of the index, tombstoned ones included or not (searches intersect with the live
 * documents at the end). A write appends new document numbers and only tombstones old ones, so
 * a set stays right across it once the new documents its clause matches are added:
 * `patchFilters` does that with the clause evaluated on just those documents, instead of
 * building every set again after each write.
 */

interface FilterEntry {
  bits: Bitmap;
  /** The clause's matches within `cand` (at least; more is fine, they are intersected). */
  within: (cand: Bitmap) => Bitmap;
}

const filterCache = new WeakMap<PhysicalIndex, { version: number; entries: BoundedMap<string, FilterEntry> }>();
const FILTER_CACHE_SIZE = 32;

/**
 * Register the sets of every index `indexes()` lists (an engine's) as one cache; returns the
 * counts its indexes are to be made with (`PhysicalIndex.cacheCounts.filterSets`).
 */
export function registerFilterSets(registry: CacheRegistry, indexes: () => readonly PhysicalIndex[]): CacheCounts {
  return registry.register({
    name: 'engine_filter_sets',
    budget: () => ({ entries: FILTER_CACHE_SIZE * indexes().length }),
    invalidatedBy: ['a write to its index that failed, or that its sets missed', 'a compaction or reindex of the index'],
    held: () => ({ entries: indexes().reduce((n, index) => n + (filterCache.get(index)?.entries.size ?? 0), 0) }),
  });
}

/** The set kept for `key`, if it is current (counted as a hit, else a miss). */
export function cachedFilter(index: PhysicalIndex, key: string): Bitmap | undefined {
  const c = filterCache.get(index);
  const bits = c !== undefined && c.version === index.version ? c.entries.get(key)?.bits : undefined;
  if (bits === undefined) index.cacheCounts.filterSets.miss();
  else index.cacheCounts.filterSets.hit();
  return bits;
}

/**
 * Build the set for `key` outside search memory and keep it, as bitsets; returns what is kept.
 * `within` evaluates the same clause on candidate documents, for `patchFilters`.
 */
export function rememberFilter(index: PhysicalIndex, key: string, build: () => Bitmap, within: (cand: Bitmap) => Bitmap): Bitmap {
  const bits = outsideSearchMemory(() => build().withBitsets());
  let c = filterCache.get(index);
  if (!c || c.version !== index.version) {
    c = { version: index.version, entries: new BoundedMap({ maxEntries: FILTER_CACHE_SIZE }) };
    filterCache.set(index, c);
  }
  c.entries.set(key, { bits, within });
  return bits;
}

/** The set for `key`: remembered, or built and remembered. */
export function filterFor(index: PhysicalIndex, key: string, build: () => Bitmap, within: (cand: Bitmap) => Bitmap): Bitmap {
  return cachedFilter(index, key) ?? rememberFilter(index, key, build, within);
}

/**
 * After one write to `index` (its version moved on by one) that added the documents `added`,
 * bring the remembered sets up to date. Call inside search memory; the sets are only touched
 * after every clause was evaluated, so no clause reads a set half patched (while the version
 * differs, the clauses do not read the sets at all).
 */
export function patchFilters(index: PhysicalIndex, versionBefore: number, added: Bitmap): void {
  const c = filterCache.get(index);
  if (!c || c.version !== versionBefore) return;
  if (index.version !== versionBefore + 1) {
    filterCache.delete(index);
    return;
  }
  const matched: { bits: Bitmap; docs: number[] }[] = [];
  for (const entry of c.entries.values()) {
    const docs = Array.from(entry.within(added).and(added).toArray());
    if (docs.length > 0) matched.push({ bits: entry.bits, docs });
  }
  // an evaluation that remembered a set of its own replaced the cache: nothing left to patch
  if (filterCache.get(index) !== c) return;
  outsideSearchMemory(() => {
    for (const m of matched) for (const d of m.docs) m.bits.add(d);
  });
  c.version = index.version;
}

/** Forget the sets of an index (a write that failed half way). */
export function dropFilters(index: PhysicalIndex): void {
  filterCache.delete(index);
}
