import type { Query, SortClause } from '../../grammar/index.js';
import type { CacheSource } from '../lib/cache-registry.js';
import type { IndexMapping } from './mapping.js';

/** A document as stored in an index: Philomena's field names (reference §2), `id` always set. */
export interface IndexDocument {
  id: number;
  [field: string]: unknown;
}

/** What every engine executes: the OpenSearch request-body subset the request builders emit. */
export interface SearchRequest {
  query: Query;
  sort?: SortClause[];
  from?: number;
  size?: number;
  /**
   * The request will not be asked again (a random order whose seed was drawn for it): an engine
   * that keeps answers need not keep this one. Not part of the request body.
   */
  oneOff?: boolean;
  /**
   * At most how long, in ms, an engine may keep this answer: a query holding a date resolved
   * against the clock (`created_at.gte:3 days ago`) names the second it was compiled in, and the
   * same text is not asked again once that second is past. Absent: as long as the documents its
   * answer depends on stay. Not part of the request body.
   */
  keepMs?: number;
}

export interface SearchResult {
  /** Hit ids in sort order (the page asked for). */
  ids: number[];
  /** Exact number of matching documents. */
  total: number;
}

/**
 * Documents whose 64-bit hashes (keyword fields of 16 lowercase hex digits) lie within a Hamming
 * distance of the query's: reverse image search. A document's distance is the smallest over the
 * fields given. Only documents `filter` matches are considered, so what it excludes never takes a
 * place in the page.
 */
export interface HashSearchRequest {
  /** Each compared with the field's values; `maxDistance` of its own replaces the request's. */
  hashes: { field: string; value: string; maxDistance?: number }[];
  maxDistance: number;
  filter?: Query;
  size: number;
}

export interface HashSearchResult {
  /** Closest first, then by id. */
  hits: { id: number; distance: number }[];
  /** Every matching document. */
  total: number;
}

/** Everything an engine needs to know to create an index. */
export interface IndexSpec {
  /** The alias clients search, e.g. `images`. */
  name: string;
  mapping: IndexMapping;
}

/**
 * The database an index reflects, recorded with the index: an index restored beside another
 * database, or beside this one restored from an older backup, holds what that database does not.
 */
export interface DatabaseMark {
  /** PostgreSQL's system identifier and the database's oid: another database or cluster differs. */
  database: string;
  /** How far the database's change log had gone when the index was written (its last `seq`). */
  changeSeq: number;
}

/** What an engine loaded from its own files at start. */
export interface PersistedState {
  /** Per alias, the outbox position its files covered (0: none recorded, e.g. a new index). */
  positions: Record<string, number>;
  /** Indices whose files did not verify and were left out, with the reason. */
  discarded: string[];
  /** The database the files were written beside (absent in files older than the mark). */
  mark?: DatabaseMark;
}

/**
 * The one interface both engines implement. `index` arguments name either an alias (`images`)
 * or a physical version returned by `createVersion` (`images_v3`).
 */
export interface SearchEngine {
  readonly kind: 'embedded' | 'opensearch';
  /**
   * A full reindex writes this engine's documents newest (highest id) first. Lucene visits the
   * documents of a segment in the order they were written, so written newest first, a search in
   * the default order (newest first) meets its page at once and passes over every later match
   * with one comparison instead of reordering its top hits for each (a popular tag's first page
   * took about a third of the time on the 1M benchmark board).
   */
  readonly loadsNewestFirst?: boolean;
  /**
   * The caches the engine holds, for `/metrics` (the embedded engine's kept answers, filter sets,
   * term unions; on its thread, read there when scraped). OpenSearch's are its own.
   */
  readonly caches?: CacheSource;
  /** Create the alias and a first version if the index does not exist yet. */
  ensureIndex(spec: IndexSpec): Promise<void>;
  /** Insert or replace documents by id. */
  write(index: string, docs: IndexDocument[]): Promise<void>;
  /** Delete documents by id; unknown ids are ignored. */
  remove(index: string, ids: number[]): Promise<void>;
  search(index: string, request: SearchRequest): Promise<SearchResult>;
  /** Documents near the given hashes (see `HashSearchRequest`). */
  searchHashes(index: string, request: HashSearchRequest): Promise<HashSearchResult>;
  /** Stored documents by id (for drift checks); missing ids are absent from the map. */
  get(index: string, ids: number[]): Promise<Map<number, IndexDocument>>;
  /** Number of documents in the index. */
  count(index: string): Promise<number>;
  /** Create a new, empty physical version of the index and return its name. */
  createVersion(spec: IndexSpec): Promise<string>;
  /** Point the alias at `version` atomically and drop the version it pointed at before. */
  switchAlias(name: string, version: string): Promise<void>;
  /**
   * Make pending writes durable (the embedded engine writes its snapshot). `position`: the
   * highest outbox id applied so far, recorded with the data (embedded engine).
   */
  flush(position?: number): Promise<void>;
  /**
   * An engine whose files live beside the service (embedded): what its last load found, so the
   * indexer can rebuild what was lost.
   */
  persisted?(): Promise<PersistedState>;
  /**
   * Record `mark` with the index from the next flush on (an engine with `persisted`). `restart`:
   * every index is about to be rebuilt from this database, so the outbox position reached so far
   * (another database's, or a later one's) is forgotten.
   */
  markDatabase?(mark: DatabaseMark, restart?: boolean): Promise<void>;
  close(): Promise<void>;
}
