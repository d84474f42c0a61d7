import type { SearchRequest, SearchResult } from '../engine.js';
import { AnswersByReads, readsConcerned } from './answers-by-reads.js';
import type { PhysicalIndex } from './index/physical-index.js';
import { sortNeedsScores } from './collector/sort.js';
import { BoundedMap } from '../../lib/bounded-map.js';
import type { CacheCounts, CacheRegistry } from '../../lib/cache-registry.js';
import { Bitmap } from './postings/bitmap.js';
import { dropFilters, patchFilters } from './query/filter-set-cache.js';
import { readsOf, type FieldChanges, type Reads } from './query/reads.js';
import { idRangeBits } from './query/score.js';
import { withSearchMemory } from './search-memory.js';
import { compareKeys, matchesAny, sameValues, SortKeysOf, sortValues, type CheckedAnswer } from './written-document.js';
import { changesOf, keywordFieldOf } from './write-changes.js';
import { ExpiringKeys } from './expiring-keys.js';

/*
 * Answers of searches, kept across writes. A busy board asks the same few thousand searches
 * again and again (listings, a filter's front page, popular tags) and changes a few images a
 * second; an answer is an id list and a total that stays right as long as no document it
 * depends on changed. Which documents a cached answer depends on is exactly those its query
 * matches: a document outside them moves neither the total nor the page, and the sort key of a
 * document is a function of that document alone (its field values, its id in a random order,
 * scores that are constants per clause (query/score.ts); ties go by document number, which only
 * grows). So a write of a few documents drops an answer only when its query matches one of them
 * before the write or after it, which the executor finds by running the query on just those
 * documents as candidates. Two things outside a document can still move an order: the range a
 * random order permutes ids in grows with the largest id, and ids that are not whole numbers
 * rank differently; when either changes, every answer of the index goes. A large batch (a
 * reindex) clears the index's answers rather than checking each.
 *
 * One document changed in place (a tag edit) that the query matches before and after leaves the
 * total as it was, and the page too when the document's sort keys did not change, provided the
 * order has no ties for the document number to settle (a sort on `id`, unique, with numeric
 * fields and `_score` before it): such an answer stays. So a tag edit keeps the answers of `*`
 * and of ranges over every image unless they sort on something the edit changed.
 *
 * Such an answer need not even run its query on the document when the edit changed nothing the
 * query and sort read (query/reads.ts): a tag added to an image concerns the searches for that
 * tag, the patterns and the sorts on tags, not a search for two other tags. Most kept answers of
 * a board are of that kind, and the answers are listed by what they read (answers-by-reads.ts),
 * so a tag edit looks only at those it concerns, not at every answer kept. The same holds for a
 * batch of documents each changed in place (the comments of an image whose tags changed, whose
 * `image.tag_ids` a comment listing reads only for the tags its filter hides): an answer none of
 * their changes concerns stays without a look.
 *
 * In a keyed order, a document that is not on an answer's page and whose sort keys fall past the
 * page's last document both before and after a write of one document leaves the page as it is:
 * it moved, entered (when the page was full) or left somewhere after it. The answer stays with
 * its total set right (`pageStays`). A tag edit on a board of a million images nearly always
 * lands there: pages are the first few hundred of an order. When the answer's query reads
 * nothing the edit changed and only its order does (a sort on tag counts, on score after a vote),
 * the document matches it after as before, whether it does or not: its sort keys, field values,
 * tell without running the query whether it stays past the page, and only a document that moves
 * within or into the page needs the run that tells whether it matches at all.
 *
 * Not kept: answers that depend on the clock (date math on `now`, read when the search runs)
 * and requests marked `oneOff` (a random order whose seed was drawn for that one request). Kept
 * for `keepMs` at most: requests whose dates were resolved against the clock (`3 days ago`,
 * compiled to the second), whose text is not asked again once that second is past; they leave
 * when their time is up (expiring-keys.ts), not when the cache is full, where every write would
 * still look at them.
 */

export interface ResultCacheOptions {
  /** Answers kept at most, over every index (0: none). */
  maxEntries?: number;
  /** Bytes kept at most (an estimate, see `entryBytes`). */
  maxBytes?: number;
  /** A write of more documents than this clears the index's answers instead of checking them. */
  maxBatch?: number;
  /**
   * Longest the checks of one write may take, in ms (half before it, half after). The checks
   * run on the engine's thread, where every search waits behind them: some 2,000 kept answers
   * took 53–90 ms a write on the 1M-image board, and the full 8,192 would take several times
   * that. Answers not checked when the time is up are dropped, most recently kept last. A cap
   * on the worst case, not the usual cost: at 10 ms most answers went at every write, and the
   * load bench's mix with one write a second fell to 0.63 of its read-only throughput.
   */
  checkBudgetMs?: number;
  /** The clock answers kept for `keepMs` expire by, in ms (a test may give its own). */
  now?: () => number;
}

const DEFAULTS: Required<ResultCacheOptions> = { maxEntries: 8192, maxBytes: 64 << 20, maxBatch: 256, checkBudgetMs: 250, now: () => performance.now() };

/** How many answers are checked between two looks at the clock. */
const CLOCK_EVERY = 16;

/** When the checks of one write must stop: the answers left unchecked then are dropped. */
class CheckDeadline {
  readonly #at: number;
  #count = 0;
  #passed = false;

  constructor(budgetMs: number) {
    this.#at = performance.now() + budgetMs;
  }

  /** Whether the time is up; the clock is read once every few calls. */
  passed(): boolean {
    if (this.#passed) return true;
    if (this.#count++ % CLOCK_EVERY === 0 && performance.now() >= this.#at) this.#passed = true;
    return this.#passed;
  }
}

/** A kept answer: its request's query and sort as the checks read them, and what it holds. */
interface Entry extends CheckedAnswer {
  owner: IndexAnswers;
  /** Where its page starts in the order. */
  from: number;
  result: SearchResult;
  bytes: number;
  /** What the query and sort read of a document. */
  reads: Reads;
  /** What the query alone reads: an edit that changes none of it leaves the document's match as it was. */
  queryReads: Reads;
  /** Whether its order is settled by sort keys alone (`keyedOrder`). */
  settled: boolean;
  /** When it was kept (later: larger). */
  seq: number;
  /**
   * The sort keys of its page's last document, once a write needed them (`pageStays`). They stay
   * right while the answer is kept: a write of that document that changes them drops the answer.
   */
  lastKeys?: (number | undefined)[];
  /** When it leaves, for a request kept for `keepMs` (on the cache's clock). */
  expiresAt?: number;
}

/** The answers of one physical index. */
interface IndexAnswers {
  id: number;
  keys: Set<string>;
  /** The same answers by what they read. */
  byReads: AnswersByReads;
}

/** A kept answer's sort keys of a document before a one-document edit. */
interface KeysBefore {
  keys: (number | undefined)[];
  /** Whether its query matched the document (false: not known, and the same after the edit). */
  matched: boolean;
}

/** A write under way on one index: call `done` once it returned or threw. */
export interface PendingChange {
  done(ok: boolean): void;
}

/** Whether a request reads the clock: date math anchored on `now`, anywhere in it. */
function readsClock(value: unknown): boolean {
  if (typeof value === 'string') return value.startsWith('now');
  if (Array.isArray(value)) return value.some(readsClock);
  if (value !== null && typeof value === 'object') return Object.values(value).some(readsClock);
  return false;
}

/** The text that identifies a request's answer on one index (null: not to be kept). */
export function answerKey(request: SearchRequest): string | null {
  if (request.oneOff === true || readsClock(request.query) || readsClock(request.sort)) return null;
  return JSON.stringify([request.query ?? null, request.sort ?? null, request.from ?? null, request.size ?? null]);
}

/**
 * Answer keys of frozen requests, by object: the engine thread hands the same frozen object for
 * the same request text (thread/parsed-requests.ts). A request that is not frozen may change
 * between searches, so its key is made each time.
 */
const keysOfRequests = new WeakMap<SearchRequest, string | null>();

function keyOf(request: SearchRequest): string | null {
  if (!Object.isFrozen(request)) return answerKey(request);
  let key = keysOfRequests.get(request);
  if (key === undefined) {
    key = answerKey(request);
    keysOfRequests.set(request, key);
  }
  return key;
}

/**
 * What an answer holds, roughly: its key, the query's text, the query itself (about as much
 * again as its text), the ids, and the map entries.
 */
function entryBytes(key: string, queryText: string, result: SearchResult): number {
  return 2 * key.length + 4 * queryText.length + 8 * result.ids.length + 200;
}

/**
 * Whether an order is settled by the sort keys of a document alone, never by its document
 * number: a list of plain clauses on `_score` and numeric fields of the index, one of them `id`.
 */
function keyedOrder(index: PhysicalIndex, sort: unknown): boolean {
  if (!Array.isArray(sort)) return false;
  let unique = false;
  for (const c of sort) {
    const [field, spec] = typeof c === 'string' ? [c, 'asc'] : c !== null && typeof c === 'object' && Object.keys(c).length === 1 ? Object.entries(c)[0]! : [];
    if (field === undefined) return false;
    const plain = spec === 'asc' || spec === 'desc' || (spec !== null && typeof spec === 'object' && Object.keys(spec).every((k) => k === 'order'));
    if (!plain) return false;
    if (field === '_score') continue;
    const f = index.root.byPath.get(field);
    if (f?.kind !== 'numeric') return false;
    if (field === 'id') unique = true;
  }
  return unique;
}


export class ResultCache {
  private readonly options: Required<ResultCacheOptions>;
  /**
   * Every answer, dropped for room by second chance (`src/lib/bounded-map.ts`), whose eviction
   * callback takes it out of its index's lists too (`forget`); keys are `<owner id>\0<answer key>`.
   */
  private readonly entries: BoundedMap<string, Entry>;
  private readonly owners = new WeakMap<PhysicalIndex, IndexAnswers>();
  private nextOwner = 1;
  private nextSeq = 0;
  /** The answers kept for a while, by when they leave. */
  private readonly expiring = new ExpiringKeys();
  /** Searches answered from memory, and searches run (with a key: the others are not counted). */
  private readonly counts: CacheCounts;
  /** Answers dropped by writes so far (for benchmarks). */
  dropped = 0;
  /** Queries the checks of writes have run so far, each on the written documents (for benchmarks). */
  checkRuns = 0;
  /** Answers a write concerned that stayed, their page past where the document was and went (for benchmarks). */
  patched = 0;
  /** Kept answers the checks of writes looked at, concerned or not (for benchmarks and tests). */
  looked = 0;

  /** `registry`: the engine's (`EmbeddedEngine.caches`), where it registers as `engine_answers`. */
  constructor(options: ResultCacheOptions, registry: CacheRegistry) {
    this.options = { ...DEFAULTS, ...options };
    const { maxEntries, maxBytes } = this.options;
    // (no entries at all: `answer` keeps nothing then)
    this.entries = new BoundedMap({ maxEntries: Math.max(1, maxEntries), maxBytes, sizeOf: (e) => e.bytes, onEvict: (full, e) => this.forget(full, e) });
    this.counts = registry.register({
      name: 'engine_answers',
      budget: { entries: maxEntries },
      invalidatedBy: ['a write to its index of a document its query matches, before or after', `a write of more than ${this.options.maxBatch} documents to its index`],
      held: () => ({ entries: this.entries.size }),
    });
  }

  get size(): number {
    return this.entries.size;
  }

  /** The answer of `request` on `index`: kept, or computed by `search` (and kept if it may be). */
  answer(index: PhysicalIndex, request: SearchRequest, search: () => SearchResult): SearchResult {
    const key = this.options.maxEntries > 0 ? keyOf(request) : null;
    if (key === null) return search();
    this.dropExpired();
    const owner = this.ownerOf(index);
    const full = `${owner.id}\u0000${key}`;
    let hit = this.entries.get(full);
    // (held back in the queue by one that expires later)
    if (hit?.expiresAt !== undefined && hit.expiresAt <= this.options.now()) {
      this.delete(full);
      hit = undefined;
    }
    if (hit) {
      this.counts.hit();
      return { ids: hit.result.ids.slice(), total: hit.result.total };
    }
    this.counts.miss();
    const result = search();
    const queryText = JSON.stringify(request.query ?? null);
    const bytes = entryBytes(full, queryText, result);
    if (bytes > this.options.maxBytes / 16) return result;
    const sortText = JSON.stringify(request.sort ?? null);
    const reads = readsOf(request.query, request.sort, keywordFieldOf(index));
    const queryReads = readsOf(request.query, undefined, keywordFieldOf(index));
    const settled = keyedOrder(index, request.sort);
    const entry: Entry = {
      owner,
      query: request.query,
      queryText,
      sort: request.sort,
      sortText,
      from: request.from ?? 0,
      result: { ids: result.ids.slice(), total: result.total },
      bytes,
      reads,
      queryReads,
      settled,
      scored: sortNeedsScores(request.sort),
      seq: this.nextSeq++,
    };
    if (request.keepMs !== undefined) {
      entry.expiresAt = this.options.now() + request.keepMs;
      this.expiring.add(full, entry.expiresAt);
    }
    // listed before it is set: an answer dropped for room, even this one, leaves both lists (`forget`)
    owner.keys.add(full);
    owner.byReads.add(full, reads, settled);
    if (!this.entries.set(full, entry)) this.forget(full, entry);
    return result;
  }

  /** Drop the answers whose time is up (unless kept again since, with a time of their own). */
  private dropExpired(): void {
    if (this.expiring.size === 0) return;
    this.expiring.takeExpired(this.options.now(), (full, at) => {
      if (this.entries.peek(full)?.expiresAt === at) this.delete(full);
    });
  }

  private ownerOf(index: PhysicalIndex): IndexAnswers {
    let owner = this.owners.get(index);
    if (!owner) {
      owner = { id: this.nextOwner++, keys: new Set(), byReads: new AnswersByReads() };
      this.owners.set(index, owner);
    }
    return owner;
  }

  private delete(full: string): void {
    const e = this.entries.peek(full);
    if (!e) return;
    this.entries.delete(full);
    this.forget(full, e);
  }

  /** Take an answer no longer kept out of its index's lists. */
  private forget(full: string, e: Entry): void {
    e.owner.keys.delete(full);
    e.owner.byReads.remove(full, e.reads, e.settled);
  }

  /** Forget every answer of `index`. */
  clear(index: PhysicalIndex): void {
    const owner = this.owners.get(index);
    if (owner) for (const full of [...owner.keys]) this.delete(full);
  }

  /**
   * Drop the answers of `index` (or of them, those of `candidates`) whose query matches one of
   * `docs`, but for those in `skip`; past the deadline, drop those not checked.
   */
  private dropMatching(index: PhysicalIndex, docs: Bitmap, deadline: CheckDeadline, skip?: Set<string>, entering = false, candidates?: readonly string[]): void {
    const owner = this.owners.get(index);
    if (!owner || docs.isEmpty()) return;
    const matched = new Map<string, boolean>();
    // one document entering a keyed answer past its page leaves the page as it is
    const one = entering && docs.size === 1 ? docs.toArray()[0]! : -1;
    const keyed = one >= 0 ? new SortKeysOf(index, one) : null;
    for (const full of candidates ?? newestFirst(owner.keys)) {
      if (skip?.has(full)) continue;
      const e = this.entries.peek(full);
      if (e === undefined) continue;
      this.looked++;
      let hit = matched.get(e.queryText);
      if (hit === undefined && deadline.passed()) hit = true;
      if (hit === undefined) {
        // one document: its match is found once for its sort keys too (a failed run: a match)
        if (keyed !== null) hit = keyed.matches(e) ?? true;
        else {
          hit = matchesAny(index, e.query, docs);
          this.checkRuns++;
        }
        matched.set(e.queryText, hit);
      }
      if (hit && keyed !== null && !deadline.passed() && e.settled) {
        const keys = keyed.of(e);
        if (keys && this.pageStays(index, e, index.ids[one]!, undefined, keys, deadline)) continue;
      }
      if (hit) {
        this.delete(full);
        this.dropped++;
      }
    }
    this.checkRuns += keyed?.runs ?? 0;
  }

  /**
   * The keys of the answers of `owner` that a one-document edit with `changes` may concern, the
   * most recently kept first: all of them when what changed is not known. The others read
   * nothing the edit changed and have a settled order: the document matches them as before,
   * with the same sort keys, and they stay without a look.
   */
  private toCheck(owner: IndexAnswers, changes: FieldChanges | null): string[] {
    if (changes === null) return newestFirst(owner.keys);
    const seqOf = (full: string) => this.entries.peek(full)?.seq ?? -1;
    return [...owner.byReads.concerned(changes)].sort((a, b) => seqOf(b) - seqOf(a));
  }

  /**
   * Before one document `doc` changes: drops the answers whose query matches it and whose order
   * is not settled by sort keys alone; returns the sort keys of those that may stay: those it
   * matches, and those whose query reads nothing the edit changed (their sort does: a tag count),
   * which it matches after as before, whether it does or not, found without a run.
   */
  private keysBefore(index: PhysicalIndex, doc: number, changes: FieldChanges | null, deadline: CheckDeadline): Map<string, KeysBefore> {
    const kept = new Map<string, KeysBefore>();
    const owner = this.owners.get(index);
    if (!owner) return kept;
    const keyed = new SortKeysOf(index, doc);
    for (const full of this.toCheck(owner, changes)) {
      const e = this.entries.peek(full);
      if (e === undefined) continue;
      this.looked++;
      if (e.settled && !e.scored && changes !== null && !readsConcerned(e.queryReads, changes)) {
        const keys = keyed.fieldKeys(e);
        if (keys !== null) kept.set(full, { keys, matched: false });
        else {
          this.delete(full);
          this.dropped++;
        }
        continue;
      }
      if (deadline.passed() && !(e.settled ? keyed.known(e) : keyed.matchKnown(e))) {
        this.delete(full);
        this.dropped++;
        continue;
      }
      if (e.settled) {
        // a failed run counts as a match (the answer goes)
        const keys = keyed.of(e);
        if (keys) kept.set(full, { keys, matched: true });
        else if (keys === null) {
          this.delete(full);
          this.dropped++;
        }
        continue;
      }
      // a failed run counts as a match (the answer goes)
      if (keyed.matches(e) ?? true) {
        this.delete(full);
        this.dropped++;
      }
    }
    this.checkRuns += keyed.runs;
    return kept;
  }

  /**
   * After that change: of the answers `keysBefore` kept, drops those the new version `added` (one
   * document, or none) leaves otherwise: one it matched that it no longer matches or matches with
   * other sort keys (unless past the page), one whose query does not read the edit with sort keys
   * that moved (unless past the page, or not matched at all); returns those that stay, which the
   * check of the new version need not see again.
   */
  private dropChanged(index: PhysicalIndex, keysBefore: Map<string, KeysBefore>, added: Bitmap, deadline: CheckDeadline): Set<string> {
    const doc = added.isEmpty() ? -1 : added.toArray()[0]!;
    const keyed = new SortKeysOf(index, doc);
    const stays = new Set<string>();
    for (const [full, before] of keysBefore) {
      const e = this.entries.peek(full);
      if (!e) continue;
      if (doc >= 0 && this.staysAfter(index, e, keyed, index.ids[doc]!, before, deadline)) stays.add(full);
      else {
        this.delete(full);
        this.dropped++;
      }
    }
    this.checkRuns += keyed.runs;
    return stays;
  }

  /** Whether an answer `keysBefore` kept stays as it is after the document `id` changed. */
  private staysAfter(index: PhysicalIndex, e: Entry, keyed: SortKeysOf, id: number, before: KeysBefore, deadline: CheckDeadline): boolean {
    if (before.matched) {
      const now = keyed.known(e) || !deadline.passed() ? keyed.of(e) : null;
      return now !== null && (sameValues(before.keys, now) || this.pageStays(index, e, id, before.keys, now, deadline));
    }
    // matched as before, whether it was or not: only a move within or into the page needs the run
    const now = keyed.fieldKeys(e);
    if (now === null) return false;
    if (sameValues(before.keys, now) || this.pageStays(index, e, id, before.keys, now, deadline)) return true;
    return (keyed.matchKnown(e) || !deadline.passed()) && keyed.matches(e) === false;
  }

  /**
   * Whether the page of a keyed answer stays as it is when the document `id`, not on it, moves
   * from sort keys `before` to `after` (undefined: not matched): so it does when both are past
   * the page's last document, and when the document enters, the page was full. Its total is then
   * set right.
   */
  private pageStays(index: PhysicalIndex, e: Entry, id: number, before: readonly (number | undefined)[] | undefined, after: readonly (number | undefined)[] | undefined, deadline: CheckDeadline): boolean {
    const ids = e.result.ids;
    const lastId = ids[ids.length - 1];
    if (lastId === undefined || ids.includes(id) || deadline.passed()) return false;
    let lastKeys = e.lastKeys;
    if (lastKeys === undefined) {
      const last = index.docOf(lastId);
      if (last < 0) return false;
      const keys = sortValues(index, e, last);
      this.checkRuns++;
      if (!keys) return false;
      lastKeys = e.lastKeys = keys;
    }
    if (before !== undefined && compareKeys(before, lastKeys) <= 0) return false;
    if (after !== undefined && compareKeys(after, lastKeys) <= 0) return false;
    // entering past a page that held every match up to the end would join it
    if (before === undefined && e.from + ids.length >= e.result.total) return false;
    if (before === undefined && after !== undefined) e.result.total++;
    else if (before !== undefined && after === undefined) e.result.total--;
    this.patched++;
    return true;
  }

  /**
   * A write or delete of the documents with `ids` is about to run on `index`: answers their old
   * versions concern go now, those their new versions concern when it is `done`; the index's
   * remembered filter sets (query/filter-set-cache.ts) take in the new versions. `docs`, when given,
   * are the new versions (of a write), which tell what changed.
   */
  changing(index: PhysicalIndex, ids: readonly unknown[], docs?: readonly Readonly<Record<string, unknown>>[]): PendingChange {
    const versionBefore = index.version;
    this.dropExpired();
    if (ids.length > this.options.maxBatch) {
      this.clear(index);
      return { done: () => this.clear(index) };
    }
    const docsBefore = index.docCount;
    const randomOrder = [idRangeBits(index.maxId), index.irregularIds === 0];
    const old = ids.length === 1 && typeof ids[0] === 'number' ? index.docOf(ids[0]) : -1;
    const deadline = new CheckDeadline(this.options.checkBudgetMs / 2);
    let keysBefore: Map<string, KeysBefore> | null = null;
    let changes: FieldChanges | null = null;
    // one document changed in place: answers it concerns before may stay (see the top)
    const trusted = attempt(() =>
      withSearchMemory(() => {
        changes = changesOf(index, ids, docs);
        if (old >= 0) keysBefore = this.keysBefore(index, old, changes, deadline);
        else {
          const owner = this.owners.get(index);
          this.dropMatching(index, docsOf(index, ids, 0), deadline, undefined, false, changes !== null && owner !== undefined ? this.toCheck(owner, changes) : undefined);
        }
      }),
    );
    return {
      done: (ok) => {
        const after = () => {
          const deadline = new CheckDeadline(this.options.checkBudgetMs / 2);
          if (idRangeBits(index.maxId) !== randomOrder[0] || (index.irregularIds === 0) !== randomOrder[1]) this.clear(index);
          const added = docsOf(index, ids, docsBefore);
          patchFilters(index, versionBefore, added);
          const checked = keysBefore === null ? undefined : this.dropChanged(index, keysBefore, added, deadline);
          // the answers the edit does not concern stay as they are (`toCheck`)
          const owner = this.owners.get(index);
          this.dropMatching(index, added, deadline, checked, true, changes !== null && owner !== undefined ? this.toCheck(owner, changes) : undefined);
        };
        // a batch that failed part way, or a check that did: nothing kept is trusted
        if (ok && trusted && attempt(() => withSearchMemory(after))) return;
        dropFilters(index);
        this.clear(index);
      },
    };
  }
}

/** An index's answer keys, the most recently kept first (checked first when time is short). */
function newestFirst(keys: Set<string>): string[] {
  return [...keys].reverse();
}

/** Whether `work` ran to its end (a write must go on whatever a check of the caches met). */
function attempt(work: () => void): boolean {
  try {
    work();
    return true;
  } catch {
    return false;
  }
}

/** The live documents of these ids numbered `from` or later, as a bitmap. */
function docsOf(index: PhysicalIndex, ids: readonly unknown[], from: number): Bitmap {
  const docs: number[] = [];
  for (const id of ids) {
    if (typeof id !== 'number') continue;
    const d = index.docOf(id);
    if (d >= from) docs.push(d);
  }
  docs.sort((a, b) => a - b);
  return Bitmap.fromSorted([...new Set(docs)]);
}
