import { asObject, ipKey, isPlainObject } from '../../../../grammar/index.js';
import { Bitmap } from '../postings/bitmap.js';
import type { NumericColumn } from '../columns/columns.js';
import { parentsOf, type Executor, type Scope } from '../query/execute.js';
import type { Field, FieldSet, NestedField, TermField } from '../index/field-set.js';
import type { PhysicalIndex } from '../index/physical-index.js';
import type { RandomOrder, Scorer } from '../query/score.js';
import { f64, u32 } from '../search-memory.js';

/*
 * Sorting: each sort clause becomes a key function (a number per document, undefined when the
 * document has no value); missing values go last unless `missing: "_first"`, and the document
 * number breaks the remaining ties. The page is found without sorting every hit: either by
 * walking a column's presorted permutation (dense results sorted by a plain numeric field), or
 * with a bounded heap of from+size entries.
 */

export interface SortKey {
  /** A pure random order (the top-k computes it inline). */
  random?: RandomOrder;
  desc: boolean;
  missingFirst: boolean;
  key: (doc: number) => number | undefined;
  /** A single-valued numeric column sorted by value: the page can be read off its permutation. */
  column?: NumericColumn;
}

/** Whether a sort list needs scores. No sort at all means `_score` descending. */
export function sortNeedsScores(sort: unknown): boolean {
  if (sort === undefined || sort === null) return true;
  const list = Array.isArray(sort) ? sort : [sort];
  return list.some((c) => c === '_score' || (isPlainObject(c) && '_score' in c));
}

const rankCache = new WeakMap<TermField, { version: number; min: Int32Array; max: Int32Array }>();

/** Smallest and largest term rank of every document of a keyword-like field. */
function termRanks(f: TermField, version: number, space: number): { min: Int32Array; max: Int32Array } {
  const c = rankCache.get(f);
  if (c && c.version === version && c.min.length >= space) return c;
  const order =
    f.kind === 'ip'
      ? Uint32Array.from({ length: f.dict.size }, (_, o) => o).sort((a, b) => {
          const ka = ipKey(f.dict.termAt(a)) ?? '';
          const kb = ipKey(f.dict.termAt(b)) ?? '';
          return ka < kb ? -1 : ka > kb ? 1 : 0;
        })
      : f.dict.sortedOrds();
  const min = new Int32Array(space).fill(-1);
  const max = new Int32Array(space).fill(-1);
  for (let r = 0; r < order.length; r++) {
    f.dict.forEachDoc(order[r]!, (d) => {
      if (d >= space) return;
      if (min[d] === -1) min[d] = r;
      max[d] = r;
    });
  }
  const out = { version, min, max };
  rankCache.set(f, out);
  return out;
}

interface ClauseSpec {
  field: string;
  order?: string;
  missing?: unknown;
  mode?: string;
  nested?: Record<string, unknown>;
}

function parseClause(c: unknown): ClauseSpec {
  if (typeof c === 'string') return { field: c };
  const obj = asObject(c, 'sort');
  const keys = Object.keys(obj);
  if (keys.length !== 1) throw new Error(`[sort] expected one field per sort clause, got ${keys.join(', ')}`);
  const field = keys[0]!;
  const v = obj[field];
  if (typeof v === 'string') return { field, order: v };
  const o = asObject(v, 'sort');
  return {
    field,
    order: o.order as string | undefined,
    missing: o.missing,
    mode: o.mode as string | undefined,
    nested: o.nested === undefined ? undefined : asObject(o.nested, 'sort'),
  };
}

/** Turn the request's sort list into key functions. */
export function buildSortKeys(sort: unknown, index: PhysicalIndex, scorer: Scorer | null, executor: Executor, live: Bitmap): SortKey[] {
  const list = sort === undefined || sort === null ? ['_score'] : Array.isArray(sort) ? sort : [sort];
  const keys: SortKey[] = [];
  for (const raw of list) {
    const c = parseClause(raw);
    if (c.order !== undefined && c.order !== 'asc' && c.order !== 'desc') throw new Error(`[sort] invalid order [${c.order}]`);
    const desc = c.order === undefined ? c.field === '_score' : c.order === 'desc';
    const missingFirst = c.missing === '_first';
    const custom = c.missing !== undefined && c.missing !== '_first' && c.missing !== '_last' ? Number(c.missing) : undefined;
    let key: (doc: number) => number | undefined;
    let column: NumericColumn | undefined;
    if (c.field === '_score') {
      const s = scorer ?? (() => 1);
      key = s;
      if (scorer?.random && c.missing === undefined) {
        keys.push({ desc, missingFirst, key, random: scorer.random });
        continue;
      }
    } else if (c.field === '_doc') {
      key = (d) => d;
    } else {
      const built = fieldKey(c, desc, index, executor, live);
      key = built.key;
      column = built.column;
    }
    if (custom !== undefined) {
      if (Number.isNaN(custom)) throw new Error(`[sort] unsupported missing value ${JSON.stringify(c.missing)}`);
      const inner = key;
      key = (d) => inner(d) ?? custom;
      column = undefined;
    }
    keys.push({ desc, missingFirst, key, column: missingFirst ? undefined : column });
  }
  return keys;
}

function nestedPathOf(set: FieldSet, field: string): NestedField | undefined {
  const parts = field.split('.');
  for (let i = parts.length - 1; i > 0; i--) {
    const f = set.byPath.get(parts.slice(0, i).join('.'));
    if (f && f.kind === 'nested') return f;
  }
  return undefined;
}

function fieldKey(
  c: ClauseSpec,
  desc: boolean,
  index: PhysicalIndex,
  executor: Executor,
  live: Bitmap,
): { key: (doc: number) => number | undefined; column?: NumericColumn } {
  const root = index.root;
  const pick = (x: Field | undefined) => x;
  const f = pick(root.byPath.get(c.field));
  const modeMax = c.mode === 'max' || (c.mode === undefined && desc);
  if (f && !c.nested) {
    switch (f.kind) {
      case 'numeric': {
        const col = f.col;
        if (c.mode === 'sum' || c.mode === 'avg' || c.mode === 'median') {
          return { key: (d) => aggregate(col.all(d), c.mode!, col.float32) };
        }
        const plain = col.multi.size === 0 && c.mode === undefined;
        return { key: (d) => col.sortKey(d, modeMax), column: plain ? col : undefined };
      }
      case 'keyword':
      case 'boolean':
      case 'ip': {
        const ranks = termRanks(f, index.version, root.length);
        const arr = modeMax ? ranks.max : ranks.min;
        return { key: (d) => (arr[d]! < 0 ? undefined : arr[d]) };
      }
      default:
        throw new Error(`[sort] can't sort on field [${c.field}] of type ${f.kind}`);
    }
  }
  // a field of nested objects: the parent's key comes from its (filtered) children
  const nf = c.nested ? root.byPath.get(String(c.nested.path)) : nestedPathOf(root, c.field);
  if (!nf || nf.kind !== 'nested') throw new Error(`[sort] no mapping found for [${c.field}] in order to sort on`);
  const child = nf.child.byPath.get(c.field);
  if (!child || child.kind !== 'numeric') throw new Error(`[sort] can't sort on nested field [${c.field}]`);
  const scope: Scope = { set: nf.child, universe: Bitmap.range(nf.child.length), index: null, nestedPath: nf.path };
  const chosen = c.nested?.filter === undefined ? scope.universe : executor.run(c.nested.filter, scope, undefined, false).bits;
  const values = new Map<number, number>();
  const parents = parentsOf(nf, chosen).and(live);
  chosen.forEach((ch) => {
    const p = nf.parentOf[ch]!;
    if (!parents.has(p)) return;
    const v = child.col.sortKey(ch, modeMax);
    if (v === undefined) return;
    const old = values.get(p);
    if (old === undefined || (modeMax ? v > old : v < old)) values.set(p, v);
  });
  return { key: (d) => values.get(d) };
}

function aggregate(vals: ArrayLike<number>, mode: string, f32: boolean): number | undefined {
  if (vals.length === 0) return undefined;
  const xs = Array.from(vals, (v) => (f32 ? Math.fround(v) : v));
  if (mode === 'sum') return xs.reduce((a, b) => a + b, 0);
  if (mode === 'avg') return xs.reduce((a, b) => a + b, 0) / xs.length;
  xs.sort((a, b) => a - b);
  const mid = xs.length >> 1;
  return xs.length % 2 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
}

/** Normalized value of one key: ascending order, missing values at ±Infinity. */
export function normalized(k: SortKey, doc: number): number {
  const v = k.key(doc);
  if (v === undefined || Number.isNaN(v)) return k.missingFirst ? -Infinity : Infinity;
  return k.desc ? -v : v;
}

function makeComparator(keys: SortKey[]): (a: number, b: number) => number {
  return (a, b) => {
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const va = normalized(k, a);
      const vb = normalized(k, b);
      if (va < vb) return -1;
      if (va > vb) return 1;
    }
    return a - b;
  };
}

/**
 * The documents of page [from, from + size) of `hits` in sort order. `space` is the number of
 * documents of the index.
 */
export function topK(hits: Bitmap, total: number, keys: SortKey[], from: number, size: number, space: number): number[] {
  const k = Math.min(from + size, total);
  if (k <= from || total === 0) return [];
  const cmp = makeComparator(keys);
  const first = keys[0];
  const random = first?.random;
  // walking the order from its top looks at size/total ranks per result, each a few times the
  // cost of ranking one hit: walk when that is well under ranking every hit
  if (random?.docOf && 4 * k * random.perm.size < total * total) return walkRandom(hits, random, first!.desc, k).slice(from, k);
  // a column walk reads about k·space/total entries of the permutation (and copies the hits to a
  // bitset, a few microseconds), the heap reads every hit and sorts its buffer as it fills
  if (first?.column && k * space < total * total) {
    const page = walk(hits, first, k, from, space, cmp);
    if (page) return page;
  }
  return heapTopK(hits, keys, k, from, cmp);
}

/** Read hits [from, k) off the presorted permutation of the first key's column. */
function walk(hits: Bitmap, key: SortKey, k: number, from: number, space: number, cmp: (a: number, b: number) => number): number[] | null {
  const col = key.column!;
  const { perm, upto } = col.sorted();
  const words = hits.toWords(space);
  const inHits = (d: number) => (words[d >>> 5]! & (1 << (d & 31))) !== 0;
  const out: number[] = [];
  let boundary = NaN;
  const n = perm.length;
  let exhausted = true;
  // values are read only from the k-th hit on: before it nothing compares them, and reading the
  // column at thousands of scattered documents (a deep page) cost more than the walk itself
  for (let i = 0; i < n; i++) {
    const d = perm[key.desc ? n - 1 - i : i]!;
    if (!inHits(d)) continue;
    if (out.length >= k && normalized(key, d) !== boundary) {
      exhausted = false;
      break;
    }
    out.push(d);
    if (out.length === k) boundary = normalized(key, d);
  }
  if (exhausted && out.length < k) return null; // documents without a value are needed: use the heap
  const walked = out.length;
  // documents written since the permutation was built can be anywhere in the order
  for (let w = upto >>> 5; w < words.length; w++) {
    let bits = words[w]!;
    while (bits !== 0) {
      const t = bits & -bits;
      const d = (w << 5) | (31 - Math.clz32(t));
      bits ^= t;
      if (d >= upto && col.has(d)) out.push(d);
    }
  }
  if (out.length > walked) return out.sort(cmp).slice(from, k);
  // in first-key order already: only the run of ties the page starts in, and the page, need the
  // other keys (the walk took every document tied with the last one)
  let lo = from;
  const startValue = normalized(key, out[from]!);
  while (lo > 0 && normalized(key, out[lo - 1]!) === startValue) lo--;
  return out.slice(lo).sort(cmp).slice(from - lo, k - lo);
}

/**
 * The first k hits of a random order, read off the permutation: ranks from the top (or the
 * bottom), each mapped back to its id and kept when that id's live document is a hit. Ranks are
 * distinct, so there are no ties for other keys to settle.
 */
function walkRandom(hits: Bitmap, random: RandomOrder, desc: boolean, k: number): number[] {
  const { perm } = random;
  const docOf = random.docOf!;
  const out: number[] = [];
  const top = perm.size - 1;
  for (let i = 0; i <= top && out.length < k; i++) {
    const d = docOf(perm.idAt(desc ? top - i : i));
    if (d >= 0 && hits.has(d)) out.push(d);
  }
  return out;
}

/** Reused by `sortedValues` (searches run one at a time). */
let cutValues = new Float64Array(0);

/** The first `count` values of the buffer, sorted natively (a view of a reused array). */
function sortedValues(bv: Float64Array, count: number): Float64Array {
  if (cutValues.length < count) cutValues = new Float64Array(bv.length);
  const sorted = cutValues.subarray(0, count);
  sorted.set(bv.subarray(0, count));
  return sorted.sort();
}

/**
 * Keep the k best entries of the buffer (in place, in no order): how many are kept (k, or all
 * when there are fewer) and the k-th best value, the new admission threshold. That value comes
 * from a native sort of a copy of the values, without a comparator call; only the entries tied
 * with it go through the full comparator.
 */
function cut(bd: Uint32Array, bv: Float64Array, count: number, k: number, cmp: (a: number, b: number) => number): { kept: number; threshold: number } {
  if (count <= k) return { kept: count, threshold: Infinity };
  const sorted = sortedValues(bv, count);
  const t = sorted[k - 1]!;
  let below = 0;
  while (sorted[below]! < t) below++;
  let n = 0;
  const ties: number[] = [];
  for (let i = 0; i < count; i++) {
    const v = bv[i]!;
    if (v < t) {
      bd[n] = bd[i]!;
      bv[n++] = v;
    } else if (v === t) ties.push(bd[i]!);
  }
  ties.sort(cmp);
  for (let j = 0; j < k - below; j++) {
    bd[n] = ties[j]!;
    bv[n++] = t;
  }
  return { kept: n, threshold: t };
}

/**
 * Entries [from, count) of the buffer in order, best first. Entries below the value at rank
 * `from` are on earlier pages: a native sort of the values finds it, and only the rest go
 * through the comparator.
 */
function ordered(bd: Uint32Array, bv: Float64Array, count: number, from: number, cmp: (a: number, b: number) => number): number[] {
  const lo = from > 0 ? sortedValues(bv, count)[from]! : -Infinity;
  const idx: number[] = [];
  let before = 0;
  for (let i = 0; i < count; i++) {
    if (bv[i]! >= lo) idx.push(i);
    else before++;
  }
  idx.sort((a, b) => bv[a]! - bv[b]! || cmp(bd[a]!, bd[b]!));
  return idx.slice(from - before).map((i) => bd[i]!);
}

/**
 * The k best documents by (first key, full comparator) without a heap: documents whose first
 * key can still make the page go to a buffer; when it fills, it is cut back to the k best and
 * the admission threshold tightens. With random or unordered keys almost every document is
 * rejected by one comparison. The first key is computed inline for random orders and columns.
 */
/** Reused across searches (they run one at a time): large per-query arrays make V8 collect often. */
let scratch = new Uint32Array(0);

function heapTopK(hits: Bitmap, keys: SortKey[], k: number, from: number, cmp: (a: number, b: number) => number): number[] {
  const size = hits.size;
  if (scratch.length < size) scratch = new Uint32Array(Math.max(size, scratch.length * 2));
  const docs = hits.toArray(scratch);
  const first = keys[0];
  if (!first) return Array.from(docs.subarray(from, k));
  const cap = Math.max(2 * k, 1024);
  const bd = u32(cap);
  const bv = f64(cap);
  let n = 0;
  let threshold = Infinity; // normalized keys ascend: keep the k smallest
  const missing = first.missingFirst ? -Infinity : Infinity;
  const sign = first.desc ? -1 : 1;
  // Newer documents have larger numbers and mostly larger dates and ids: read in the direction
  // of the order, the best come first and the rest fail the threshold, where the other way every
  // document would beat the buffer and force a cut every few thousand. Results do not depend on
  // the direction (ties are settled by the comparator).
  const last = docs.length - 1;
  const step = first.desc ? -1 : 1;
  const start = first.desc ? last : 0;
  if (first.random) {
    // scores are rank / size · boost (boost > 0): the ranks order the same way
    const { perm, ids } = first.random;
    for (let j = 0, i = start; j <= last; j++, i += step) {
      const d = docs[i]!;
      const v = sign * perm.rankOf(ids[d]!);
      if (v <= threshold) {
        bd[n] = d;
        bv[n] = v;
        if (++n === cap) ({ kept: n, threshold } = cut(bd, bv, n, k, cmp));
      }
    }
  } else if (first.column) {
    const col = first.column;
    const vals = col.values;
    const pres = col.present;
    const f32 = col.float32;
    const len = col.length;
    for (let j = 0, i = start; j <= last; j++, i += step) {
      const d = docs[i]!;
      const v = d >= len || (pres[d >>> 5]! & (1 << (d & 31))) === 0 ? missing : sign * (f32 ? Math.fround(vals[d]!) : vals[d]!);
      if (v <= threshold) {
        bd[n] = d;
        bv[n] = v;
        if (++n === cap) ({ kept: n, threshold } = cut(bd, bv, n, k, cmp));
      }
    }
  } else {
    const fn = first.key;
    for (let j = 0, i = start; j <= last; j++, i += step) {
      const d = docs[i]!;
      const raw = fn(d);
      const v = raw === undefined || raw !== raw ? missing : sign * raw;
      if (v <= threshold) {
        bd[n] = d;
        bv[n] = v;
        if (++n === cap) ({ kept: n, threshold } = cut(bd, bv, n, k, cmp));
      }
    }
  }
  n = cut(bd, bv, n, k, cmp).kept;
  return ordered(bd, bv, n, from, cmp);
}
