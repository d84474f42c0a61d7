import type { IndexDocument } from '../../engine.js';
import type { IndexMapping } from '../../mapping.js';
import { CacheCounts } from '../../../lib/cache-registry.js';
import { Bitmap } from '../postings/bitmap.js';
import type { TermDictionary } from '../terms/term-dictionary.js';
import { FieldSet } from './field-set.js';

/**
 * Where the caches an index holds count their hits and misses: its remembered filter sets
 * (`query/filter-set-cache.ts`) and its dictionaries' unions. An engine hands the same counts to
 * every index it makes, so each cache is counted once over all of them (`EmbeddedEngine.caches`).
 */
export interface IndexCacheCounts {
  filterSets: CacheCounts;
  termUnions: CacheCounts;
}

/** Counts for an index outside an engine (tests, tools): counted, reported nowhere. */
export const uncountedCaches = (): IndexCacheCounts => ({ filterSets: new CacheCounts(), termUnions: new CacheCounts() });

/** id → document number: a direct table for ids below 2^26, a Map for the others. */
export class IdMap {
  private table = new Int32Array(1024).fill(-1);
  private other = new Map<number, number>();

  get(id: number): number {
    if (Number.isInteger(id) && id >= 0 && id < this.table.length) return this.table[id]!;
    if (Number.isInteger(id) && id >= 0 && id < 1 << 26) return -1;
    return this.other.get(id) ?? -1;
  }

  set(id: number, doc: number): void {
    if (Number.isInteger(id) && id >= 0 && id < 1 << 26) {
      if (id >= this.table.length) {
        let cap = this.table.length * 2;
        while (cap <= id) cap *= 2;
        const next = new Int32Array(cap).fill(-1);
        next.set(this.table);
        this.table = next;
      }
      this.table[id] = doc;
    } else if (doc < 0) this.other.delete(id);
    else this.other.set(id, doc);
  }

  byteSize(): number {
    return this.table.byteLength + this.other.size * 40;
  }
}

export class WriteError extends Error {
  constructor(
    message: string,
    readonly failures: { id: number; error: string }[],
  ) {
    super(message);
  }
}

/**
 * One physical index (`images_v2`): dense document numbers in write order, the id ↔ number maps
 * and a live-documents bitmap. Deletes are tombstones (cleared live bits); an update appends the
 * new version and tombstones the old one. `compacted()` rebuilds without tombstones.
 */
export class PhysicalIndex {
  readonly root: FieldSet;
  ids: Float64Array = new Float64Array(1024);
  readonly idMap = new IdMap();
  live = new Bitmap();
  liveCount = 0;
  /** The largest id ever written, and how many ids were not whole numbers ≥ 0 (random order). */
  maxId = 0;
  irregularIds = 0;
  /** Incremented on every change (caches key on it). */
  version = 0;
  /** Changed since the last flush. */
  dirty = true;
  /** Ids written or removed since the last flush (what a change log entry must record). */
  readonly pendingIds = new Set<number>();
  /** Snapshot this index was loaded from or last written to (null: none yet). */
  generation: string | null = null;
  /** Entries in the change log on top of that snapshot. */
  logEntries = 0;
  /** The outbox position its files on disk cover (see persistence/snapshot.ts). */
  position = 0;

  constructor(
    readonly name: string,
    readonly mapping: IndexMapping,
    readonly cacheCounts: IndexCacheCounts = uncountedCaches(),
  ) {
    this.root = new FieldSet(mapping.properties, '', cacheCounts.termUnions);
  }

  get docCount(): number {
    return this.root.length;
  }

  get deletedCount(): number {
    return this.root.length - this.liveCount;
  }

  docOf(id: number): number {
    return this.idMap.get(id);
  }

  /** Insert or replace. Documents that fail to index are reported together at the end. */
  write(docs: IndexDocument[]): void {
    const failures: { id: number; error: string }[] = [];
    for (const src of docs) {
      const id = src.id;
      if (typeof id !== 'number' || !Number.isFinite(id)) {
        failures.push({ id: Number(id), error: 'document id must be a number' });
        continue;
      }
      const doc = this.root.length;
      try {
        this.root.addDoc(doc, src);
      } catch (e) {
        failures.push({ id, error: e instanceof Error ? e.message : String(e) });
        this.touch();
        continue;
      }
      this.setId(doc, id);
      const old = this.idMap.get(id);
      if (old >= 0) {
        this.live.remove(old);
        this.liveCount--;
      }
      this.idMap.set(id, doc);
      this.live.append(doc);
      this.liveCount++;
      this.pendingIds.add(id);
    }
    this.touch();
    if (failures.length > 0) {
      throw new WriteError(
        `${failures.length} document(s) failed to index: ` +
          failures
            .slice(0, 5)
            .map((f) => `${f.id}: ${f.error}`)
            .join('; '),
        failures,
      );
    }
  }

  private setId(doc: number, id: number): void {
    if (doc >= this.ids.length) {
      let cap = this.ids.length * 2;
      while (cap <= doc) cap *= 2;
      const next = new Float64Array(cap);
      next.set(this.ids);
      this.ids = next;
    }
    this.ids[doc] = id;
    this.noteId(id);
  }

  /** Keep `maxId` and `irregularIds` (also for ids restored from a snapshot). */
  noteId(id: number): void {
    if (!(id >= 0 && Math.floor(id) === id)) this.irregularIds++;
    else if (id > this.maxId) this.maxId = id;
  }

  remove(ids: number[]): void {
    for (const id of ids) {
      const doc = this.idMap.get(id);
      if (doc < 0) continue;
      this.live.remove(doc);
      this.liveCount--;
      this.idMap.set(id, -1);
      this.pendingIds.add(id);
    }
    this.touch();
  }

  private touch(): void {
    this.version++;
    this.dirty = true;
  }

  get(ids: number[]): Map<number, IndexDocument> {
    const out = new Map<number, IndexDocument>();
    for (const id of ids) {
      const doc = this.idMap.get(id);
      if (doc >= 0) out.set(id, this.root.decode(doc) as IndexDocument);
    }
    return out;
  }

  /** Whether enough tombstones piled up to make a rebuild worth it. */
  needsCompaction(): boolean {
    const dead = this.deletedCount;
    return dead >= 4096 && dead * 4 > this.root.length;
  }

  /** A copy holding only the live documents, renumbered in order. */
  compacted(): PhysicalIndex {
    const next = new PhysicalIndex(this.name, this.mapping, this.cacheCounts);
    const docs = this.live.toArray();
    const batch: IndexDocument[] = [];
    for (let i = 0; i < docs.length; i++) {
      batch.push(this.root.decode(docs[i]!) as IndexDocument);
      if (batch.length === 4096) {
        next.write(batch);
        batch.length = 0;
      }
    }
    next.write(batch);
    next.trim();
    return next;
  }

  byteSize(): number {
    let n = 0;
    for (const bytes of this.byteSizes().values()) n += bytes;
    return n;
  }

  /** Give back the room its arrays grew ahead of appends (a freshly built version). */
  trim(): void {
    this.root.trim();
    if (this.ids.length > this.docCount) this.ids = this.ids.slice(0, Math.max(1, this.docCount));
    this.live.trim();
  }

  /** The dictionaries whose unions of expansions are kept: keyword and text fields', nested ones' too. */
  unionDictionaries(): TermDictionary[] {
    return unionDictionariesOf(this.root, []);
  }

  /** Bytes by structure (see `FieldSet.byteSizes`), with the id maps and live set as `ids`. */
  byteSizes(): Map<string, number> {
    const out = this.root.byteSizes();
    out.set('ids', this.ids.byteLength + this.idMap.byteSize() + this.live.byteSize());
    return out;
  }
}

/** `set`'s dictionaries whose unions are kept, added to `into`: patterns and fuzzy queries read keyword and text fields. */
function unionDictionariesOf(set: FieldSet, into: TermDictionary[]): TermDictionary[] {
  for (const f of set.fields) {
    if (f?.kind === 'keyword') into.push(f.dict);
    else if (f?.kind === 'text') into.push(f.text.dict);
    else if (f?.kind === 'nested') unionDictionariesOf(f.child, into);
  }
  return into;
}
