/**
 * What one written document is to the answers a write's checks look at (result-cache.ts): whether
 * their queries match it, and its sort keys under their orders, each found once per write side
 * (`SortKeysOf`); and how two documents' keys compare.
 */
import { buildSortKeys, normalized, sortNeedsScores } from './collector/sort.js';
import type { PhysicalIndex } from './index/physical-index.js';
import { Bitmap } from './postings/bitmap.js';
import { Executor, type Scope } from './query/execute.js';

/** Where a check's query runs: the whole live index, outside any nested field. */
const wholeIndex = (index: PhysicalIndex): Scope => ({ set: index.root, universe: index.live, index, nestedPath: null });

/** What the checks read of a kept answer. */
export interface CheckedAnswer {
  /** The request's query (what decides whether a changed document concerns the answer). */
  query: unknown;
  /** Its text: answers that differ only in sort or page are checked once. */
  queryText: string;
  sort: unknown;
  /** The sort's text: answers that differ only in page share their sort keys. */
  sortText: string;
  /** Whether its sort reads scores (`sortNeedsScores`): its keys take a run of query and sort together. */
  scored: boolean;
}

/**
 * The sort keys of one live document under an answer's query and sort, in one run of the query,
 * normalized to ascending order (`normalized`): undefined when the query does not match it, null
 * when the run failed.
 */
export function sortValues(index: PhysicalIndex, e: CheckedAnswer, doc: number): SortValues {
  try {
    const executor = new Executor(Date.now(), sortNeedsScores(e.sort));
    const hits = executor.run(e.query ?? { match_all: {} }, wholeIndex(index), Bitmap.of(doc));
    if (!hits.bits.has(doc)) return undefined;
    return buildSortKeys(e.sort, index, hits.score, executor, index.live).map((k) => normalized(k, doc));
  } catch {
    return null;
  }
}

/** A document's normalized sort keys (undefined: not matched; null: a run that failed). */
export type SortValues = (number | undefined)[] | null | undefined;

/**
 * The sort keys of one document under the answers checked for one write, each paid for once:
 * whether it matches, once per query (the answers of one search in every order, on every page,
 * share it), and its keys under a sort that reads no score, once per sort (they are its field
 * values, whatever the query). A sort on `_score` takes a run of the query and sort together.
 */
export class SortKeysOf {
  /** Keys under a query and a sort on `_score`, by both. */
  private readonly scored = new Map<string, SortValues>();
  /** Whether the document matches, by query (null: the run failed). */
  private readonly matched = new Map<string, boolean | null>();
  /** Keys under a sort that reads no score, by sort (null: they could not be built). */
  private readonly bySort = new Map<string, (number | undefined)[] | null>();
  /** Queries run so far. */
  runs = 0;

  constructor(
    private readonly index: PhysicalIndex,
    private readonly doc: number,
  ) {}

  /** Whether the keys of the answer's query and sort were found already (no run left to pay). */
  known(e: CheckedAnswer): boolean {
    return e.scored ? this.scored.has(`${e.queryText}\u0000${e.sortText}`) : this.matched.has(e.queryText);
  }

  /** Whether the match of the answer's query was found already. */
  matchKnown(e: CheckedAnswer): boolean {
    return this.matched.has(e.queryText);
  }

  /** Whether the answer's query matches the document (null: the run failed). */
  matches(e: CheckedAnswer): boolean | null {
    let hit = this.matched.get(e.queryText);
    if (hit === undefined) {
      hit = matchOne(this.index, e.query, this.doc);
      this.runs++;
      this.matched.set(e.queryText, hit);
    }
    return hit;
  }

  /** The document's keys under the answer's sort, which reads no score, matched or not (null: they could not be built). */
  fieldKeys(e: CheckedAnswer): (number | undefined)[] | null {
    let keys = this.bySort.get(e.sortText);
    if (keys === undefined) {
      keys = fieldSortValues(this.index, e.sort, this.doc);
      this.bySort.set(e.sortText, keys);
    }
    return keys;
  }

  /** `sortValues` of the document under the answer's query and sort. */
  of(e: CheckedAnswer): SortValues {
    if (e.scored) {
      const both = `${e.queryText}\u0000${e.sortText}`;
      if (this.scored.has(both)) return this.scored.get(both);
      const keys = sortValues(this.index, e, this.doc);
      this.runs++;
      this.scored.set(both, keys);
      return keys;
    }
    const hit = this.matches(e);
    if (hit !== true) return hit === null ? null : undefined;
    return this.fieldKeys(e);
  }
}

/** Whether `query` matches the live document `doc` (null: the run failed). */
function matchOne(index: PhysicalIndex, query: unknown, doc: number): boolean | null {
  try {
    return new Executor(Date.now(), false).run(query ?? { match_all: {} }, wholeIndex(index), Bitmap.of(doc), false).bits.has(doc);
  } catch {
    return null;
  }
}

/** The normalized keys of `doc` under a sort that reads no score (null: they could not be built). */
function fieldSortValues(index: PhysicalIndex, sort: unknown, doc: number): (number | undefined)[] | null {
  try {
    return buildSortKeys(sort, index, null, new Executor(Date.now(), false), index.live).map((k) => normalized(k, doc));
  } catch {
    return null;
  }
}

/** The order of two documents' normalized sort keys (a keyed order has no ties between two documents). */
export function compareKeys(a: readonly (number | undefined)[], b: readonly (number | undefined)[]): number {
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i]!, b[i]!];
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}

export const sameValues = (a: (number | undefined)[], b: (number | undefined)[] | null | undefined) =>
  !!b && a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

/** Whether `query` matches one of `docs` (live documents of `index`). */
export function matchesAny(index: PhysicalIndex, query: unknown, docs: Bitmap): boolean {
  try {
    return !new Executor(Date.now(), false).run(query ?? { match_all: {} }, wholeIndex(index), docs, false).bits.and(docs).isEmpty();
  } catch {
    return true;
  }
}
