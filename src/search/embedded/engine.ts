import type { DatabaseMark, HashSearchRequest, HashSearchResult, IndexDocument, IndexSpec, PersistedState, SearchEngine, SearchRequest, SearchResult } from '../engine.js';
import { CacheRegistry } from '../../lib/cache-registry.js';
import { searchIndexHashes } from './hash-search.js';
import { type IndexCacheCounts, PhysicalIndex } from './index/physical-index.js';
import { registerFilterSets } from './query/filter-set-cache.js';
import { ResultCache, type ResultCacheOptions } from './result-cache.js';
import { searchIndex } from './search.js';
import { SnapshotStore } from './persistence/snapshot.js';
import { registerTermUnions } from './terms/term-dictionary.js';

export interface EmbeddedEngineOptions {
  /** Directory of the snapshots (`<dataDir>/index/`); without it the engine lives in memory. */
  dataDir?: string;
  /**
   * Bounds of the cache of search answers kept across writes (result-cache.ts); false keeps no
   * answer (the filter sets are still patched by writes).
   */
  resultCache?: ResultCacheOptions | false;
}

/**
 * The in-process search engine: physical indices `<name>_v<n>` behind aliases `<name>`, the
 * OpenSearch DSL executed as bitmap algebra (see execute.ts), snapshots on `flush()`.
 *
 * Every operation runs to completion synchronously once the engine is open, so a search always
 * sees one consistent index: an alias switch or a compaction replaces objects, and a search that
 * already holds the old object finishes on it.
 */
export class EmbeddedEngine implements SearchEngine {
  readonly kind = 'embedded' as const;
  private readonly indices = new Map<string, PhysicalIndex>();
  private readonly aliases = new Map<string, string>();
  private readonly store: SnapshotStore | null;
  private readonly opening: Promise<void>;
  private aliasesDirty = false;
  /** The highest outbox position flushed or asked to be (see persistence/snapshot.ts). */
  private position = 0;
  private discarded: string[] = [];
  /** The database the index reflects, saved with the alias map (see `SearchEngine.markDatabase`). */
  private mark: DatabaseMark | undefined;
  private readonly results: ResultCache;
  /**
   * The engine's caches, on `/metrics` (`SearchEngine.caches`): kept answers, and the filter sets
   * and term unions of its indexes, each counted over all of them (an index holds its own, and
   * several engines may share a process); on a thread, the host's parsed requests too. A registry
   * of its own, not `processCaches`: engines in one process must not collide.
   */
  readonly caches = new CacheRegistry();
  /** Where the caches of each index it makes count. */
  private readonly indexCounts: IndexCacheCounts;

  constructor(options: EmbeddedEngineOptions = {}) {
    this.results = new ResultCache(options.resultCache === false ? { maxEntries: 0 } : (options.resultCache ?? {}), this.caches);
    const indexes = () => [...this.indices.values()];
    this.indexCounts = {
      filterSets: registerFilterSets(this.caches, indexes),
      termUnions: registerTermUnions(this.caches, () => indexes().flatMap((index) => index.unionDictionaries())),
    };
    this.store = options.dataDir ? new SnapshotStore(options.dataDir, this.indexCounts) : null;
    this.opening = this.store ? this.load(this.store) : Promise.resolve();
    // a failed load is reported by every later call
    this.opening.catch(() => {});
  }

  /** Resolves once the snapshots (if any) are loaded. */
  open(): Promise<void> {
    return this.opening;
  }

  private async load(store: SnapshotStore): Promise<void> {
    const state = await store.load();
    this.discarded = state.discarded;
    this.mark = state.mark;
    for (const index of state.indices) {
      this.indices.set(index.name, index);
      this.position = Math.max(this.position, index.position);
    }
    for (const [alias, target] of Object.entries(state.aliases) as [string, string][]) {
      if (this.indices.has(target)) this.aliases.set(alias, target);
    }
  }

  async persisted(): Promise<PersistedState> {
    await this.opening;
    const positions: Record<string, number> = {};
    for (const [alias, target] of this.aliases) positions[alias] = this.indices.get(target)!.position;
    return { positions, discarded: this.discarded, ...(this.mark ? { mark: this.mark } : {}) };
  }

  async markDatabase(mark: DatabaseMark, restart = false): Promise<void> {
    await this.opening;
    this.mark = mark;
    if (restart) this.position = 0;
    this.aliasesDirty = true;
  }

  private resolve(name: string): PhysicalIndex {
    const index = this.indices.get(this.aliases.get(name) ?? name);
    if (!index) throw new Error(`no such index [${name}]`);
    return index;
  }

  private nextVersion(name: string): string {
    let max = 0;
    const re = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}_v(\\d+)$`);
    for (const n of this.indices.keys()) {
      const m = re.exec(n);
      if (m) max = Math.max(max, Number(m[1]));
    }
    return `${name}_v${max + 1}`;
  }

  async ensureIndex(spec: IndexSpec): Promise<void> {
    await this.opening;
    if (this.aliases.has(spec.name)) return;
    const version = this.nextVersion(spec.name);
    this.indices.set(version, new PhysicalIndex(version, spec.mapping, this.indexCounts));
    this.aliases.set(spec.name, version);
    this.aliasesDirty = true;
  }

  async write(index: string, docs: IndexDocument[]): Promise<void> {
    await this.opening;
    const target = this.resolve(index);
    this.applyChange(
      target,
      docs.map((d) => d.id),
      () => target.write(docs),
      docs,
    );
  }

  async remove(index: string, ids: number[]): Promise<void> {
    await this.opening;
    const target = this.resolve(index);
    this.applyChange(target, ids, () => target.remove(ids));
  }

  /** `apply` a change of the documents with `ids` (to `docs`, for a write), the kept answers checked around it. */
  private applyChange(target: PhysicalIndex, ids: readonly unknown[], apply: () => void, docs?: readonly IndexDocument[]): void {
    const change = this.results.changing(target, ids, docs);
    let ok = false;
    try {
      apply();
      ok = true;
    } finally {
      change.done(ok);
      this.maybeCompact(target);
    }
  }

  private maybeCompact(index: PhysicalIndex): void {
    if (!index.needsCompaction() || this.indices.get(index.name) !== index) return;
    this.indices.set(index.name, index.compacted());
  }

  async search(index: string, request: SearchRequest): Promise<SearchResult> {
    await this.opening;
    const target = this.resolve(index);
    return this.results.answer(target, request, () => searchIndex(target, request));
  }

  async searchHashes(index: string, request: HashSearchRequest): Promise<HashSearchResult> {
    await this.opening;
    return searchIndexHashes(this.resolve(index), request);
  }

  async get(index: string, ids: number[]): Promise<Map<number, IndexDocument>> {
    await this.opening;
    return this.resolve(index).get(ids);
  }

  async count(index: string): Promise<number> {
    await this.opening;
    return this.resolve(index).liveCount;
  }

  async createVersion(spec: IndexSpec): Promise<string> {
    await this.opening;
    const version = this.nextVersion(spec.name);
    this.indices.set(version, new PhysicalIndex(version, spec.mapping, this.indexCounts));
    return version;
  }

  async switchAlias(name: string, version: string): Promise<void> {
    await this.opening;
    const index = this.indices.get(version);
    if (index === undefined) throw new Error(`no such index [${version}]`);
    // a freshly built version holds the room its arrays grew ahead of appends: give it back
    index.trim();
    const old = this.aliases.get(name);
    this.aliases.set(name, version);
    this.aliasesDirty = true;
    if (old !== undefined && old !== version) this.indices.delete(old);
  }

  async flush(position?: number): Promise<void> {
    await this.opening;
    if (!this.store) return;
    // Only a flush that names a position raises what clean indices record: an index loaded
    // behind the others (its log lost) must keep its old position until the indexer rebuilds it,
    // whatever else (a drift check, a status) flushes meanwhile.
    this.position = Math.max(this.position, position ?? 0);
    const changed = [...this.indices.values()].filter((i) => i.dirty || (position !== undefined && i.position < this.position));
    if (changed.length === 0 && !this.aliasesDirty) return;
    await this.store.save([...this.indices.values()], { aliases: Object.fromEntries(this.aliases), mark: this.mark }, this.position, position !== undefined);
    this.aliasesDirty = false;
  }

  async close(): Promise<void> {
    await this.flush();
  }

  /**
   * Search answers kept, how many writes dropped so far, how many queries their checks ran and
   * how many answers they looked at (for diagnostics and benchmarks).
   */
  keptAnswers(): { entries: number; dropped: number; checkRuns: number; patched: number; looked: number } {
    const r = this.results;
    return { entries: r.size, dropped: r.dropped, checkRuns: r.checkRuns, patched: r.patched, looked: r.looked };
  }

  /** Approximate bytes held by an index's structures (for diagnostics and benchmarks). */
  byteSize(index: string): number {
    return this.resolve(index).byteSize();
  }

  /** The same by structure (`rows`, `tags postings`, `created_at column` …). */
  byteSizes(index: string): Map<string, number> {
    return this.resolve(index).byteSizes();
  }
}
