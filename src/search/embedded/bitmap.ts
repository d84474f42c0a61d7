/**
 * Compressed bitmaps of document numbers (0 ≤ x < 2^31), roaring style: the value space is cut
 * into chunks of 65,536 by the high 16 bits, and each non-empty chunk holds one container,
 * either a sorted Uint16Array of the low bits (at most 4,096 values) or a 2,048-word bitset.
 *
 * Containers are indexed directly by chunk number (`c[x >>> 16]`): document numbers are dense,
 * so a million documents need 16 slots. Binary operations never mutate their operands and never
 * share containers with them, so a result can be changed without touching an index's postings.
 * Inside a search their containers live in search memory (search-memory.ts).
 */

import { andCount, andNotWords, andWords, CONTAINER_WORDS, countWords, orWords } from './bitset-kernels.js';
import { inSearchMemory, u16, u32 } from './search-memory.js';

export const ARRAY_MAX = 4096;
const WORDS = CONTAINER_WORDS;

export class ArrayContainer {
  readonly kind = 0 as const;
  /** Sorted low 16 bits; `a.length` may exceed `n` (spare capacity for appends). */
  constructor(
    public a: Uint16Array,
    public n: number,
  ) {}
}

export class BitsetContainer {
  readonly kind = 1 as const;
  constructor(
    public w: Uint32Array,
    public n: number,
  ) {}
}

export type Container = ArrayContainer | BitsetContainer;

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Index of the lowest set bit of a non-zero 32-bit word. */
function ctz(x: number): number {
  return 31 - Math.clz32(x & -x);
}

function bitsToArray(w: Uint32Array, n: number): ArrayContainer {
  const a = u16(n);
  let k = 0;
  for (let i = 0; i < WORDS; i++) {
    let word = w[i]!;
    while (word !== 0) {
      const t = word & -word;
      a[k++] = (i << 5) | (31 - Math.clz32(t));
      word ^= t;
    }
  }
  return new ArrayContainer(a, k);
}

function arrayToBits(c: ArrayContainer): BitsetContainer {
  const w = u32(WORDS);
  const a = c.a;
  for (let i = 0; i < c.n; i++) {
    const v = a[i]!;
    w[v >>> 5]! |= 1 << (v & 31);
  }
  return new BitsetContainer(w, c.n);
}

/**
 * A temporary of a search stays a bitset down to this size: its next operation is most likely
 * with a bitset, which the kernels do faster than a loop over a few hundred values, and turning
 * it into an array costs a pass over its 2,048 words (at 1,024, a listing's search spent more on
 * those passes than on the intersections; 256 was 8 % faster over the benchmark mix, 64 no
 * faster than 256).
 */
const TEMPORARY_ARRAY_MAX = 256;

/** A bitset with few values becomes an array. */
function fromWords(w: Uint32Array, n: number): Container | undefined {
  if (n === 0) return undefined;
  return n <= (inSearchMemory(w) ? TEMPORARY_ARRAY_MAX : ARRAY_MAX) ? bitsToArray(w, n) : new BitsetContainer(w, n);
}

function copyContainer(c: Container): Container {
  if (c.kind === 0) {
    const a = u16(c.n);
    a.set(c.a.subarray(0, c.n));
    return new ArrayContainer(a, c.n);
  }
  return new BitsetContainer(copyWords(c.w), c.n);
}

function copyWords(w: Uint32Array): Uint32Array {
  const out = u32(WORDS);
  out.set(w);
  return out;
}

function hasIn(c: Container, low: number): boolean {
  if (c.kind === 1) return (c.w[low >>> 5]! & (1 << (low & 31))) !== 0;
  return searchU16(c.a, c.n, low) >= 0;
}

/** Binary search: index of v, or −(insertion point) − 1. */
function searchU16(a: Uint16Array, n: number, v: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const x = a[mid]!;
    if (x < v) lo = mid + 1;
    else if (x > v) hi = mid - 1;
    else return mid;
  }
  return -lo - 1;
}

/** First index in a[from, n) with a[i] ≥ v (galloping then binary search). */
function gallop(a: Uint16Array, from: number, n: number, v: number): number {
  if (from >= n || a[from]! >= v) return from;
  let step = 1;
  let lo = from;
  let hi = from + 1;
  while (hi < n && a[hi]! < v) {
    lo = hi;
    step <<= 1;
    hi = from + step;
  }
  if (hi > n) hi = n;
  // a[lo] < v, answer in (lo, hi]
  lo++;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// ---------------------------------------------------------------- container algebra

function andC(x: Container, y: Container): Container | undefined {
  if (x.kind === 0 && y.kind === 0) return andAA(x, y);
  if (x.kind === 0) return andAB(x, y as BitsetContainer);
  if (y.kind === 0) return andAB(y, x);
  const w = u32(WORDS);
  return fromWords(w, andWords(x.w, y.w, w));
}

function andAA(x: ArrayContainer, y: ArrayContainer): ArrayContainer | undefined {
  let small = x;
  let big = y;
  if (small.n > big.n) {
    small = y;
    big = x;
  }
  const out = u16(small.n);
  let k = 0;
  const a = small.a;
  const b = big.a;
  const an = small.n;
  const bn = big.n;
  if (an * 32 < bn) {
    let j = 0;
    for (let i = 0; i < an && j < bn; i++) {
      const v = a[i]!;
      j = gallop(b, j, bn, v);
      if (j < bn && b[j] === v) out[k++] = v;
    }
  } else {
    let i = 0;
    let j = 0;
    while (i < an && j < bn) {
      const u = a[i]!;
      const v = b[j]!;
      if (u < v) i++;
      else if (u > v) j++;
      else {
        out[k++] = u;
        i++;
        j++;
      }
    }
  }
  return k === 0 ? undefined : new ArrayContainer(out, k);
}

function andAB(x: ArrayContainer, y: BitsetContainer): ArrayContainer | undefined {
  const out = u16(x.n);
  let k = 0;
  const a = x.a;
  const w = y.w;
  for (let i = 0; i < x.n; i++) {
    const v = a[i]!;
    if ((w[v >>> 5]! & (1 << (v & 31))) !== 0) out[k++] = v;
  }
  return k === 0 ? undefined : new ArrayContainer(out, k);
}

function orC(x: Container, y: Container): Container {
  if (x.kind === 0 && y.kind === 0) {
    if (x.n + y.n <= ARRAY_MAX) return orAA(x, y);
    const bits = arrayToBits(x);
    orArrayInto(bits, y);
    return bits.n <= ARRAY_MAX ? bitsToArray(bits.w, bits.n) : bits;
  }
  if (x.kind === 0) return orAB(x, y as BitsetContainer);
  if (y.kind === 0) return orAB(y, x);
  const w = u32(WORDS);
  return new BitsetContainer(w, orWords(x.w, y.w, w));
}

function orAA(x: ArrayContainer, y: ArrayContainer): ArrayContainer {
  const a = x.a;
  const b = y.a;
  const an = x.n;
  const bn = y.n;
  const out = u16(an + bn);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < an && j < bn) {
    const u = a[i]!;
    const v = b[j]!;
    if (u < v) {
      out[k++] = u;
      i++;
    } else if (u > v) {
      out[k++] = v;
      j++;
    } else {
      out[k++] = u;
      i++;
      j++;
    }
  }
  while (i < an) out[k++] = a[i++]!;
  while (j < bn) out[k++] = b[j++]!;
  return new ArrayContainer(out, k);
}

function orArrayInto(bits: BitsetContainer, x: ArrayContainer): void {
  const w = bits.w;
  const a = x.a;
  let n = bits.n;
  for (let i = 0; i < x.n; i++) {
    const v = a[i]!;
    const m = 1 << (v & 31);
    const idx = v >>> 5;
    const old = w[idx]!;
    if ((old & m) === 0) {
      w[idx] = old | m;
      n++;
    }
  }
  bits.n = n;
}

function orAB(x: ArrayContainer, y: BitsetContainer): BitsetContainer {
  const bits = new BitsetContainer(copyWords(y.w), y.n);
  orArrayInto(bits, x);
  return bits;
}

function andNotC(x: Container, y: Container): Container | undefined {
  if (x.kind === 0) {
    const a = x.a;
    const out = u16(x.n);
    let k = 0;
    if (y.kind === 1) {
      const w = y.w;
      for (let i = 0; i < x.n; i++) {
        const v = a[i]!;
        if ((w[v >>> 5]! & (1 << (v & 31))) === 0) out[k++] = v;
      }
    } else {
      const b = y.a;
      const bn = y.n;
      let j = 0;
      for (let i = 0; i < x.n; i++) {
        const v = a[i]!;
        while (j < bn && b[j]! < v) j++;
        if (j < bn && b[j] === v) continue;
        out[k++] = v;
      }
    }
    return k === 0 ? undefined : new ArrayContainer(out, k);
  }
  if (y.kind === 1) {
    const w = u32(WORDS);
    return fromWords(w, andNotWords(x.w, y.w, w));
  }
  const w = copyWords(x.w);
  let n = x.n;
  const b = y.a;
  for (let i = 0; i < y.n; i++) {
    const v = b[i]!;
    const m = 1 << (v & 31);
    const idx = v >>> 5;
    const old = w[idx]!;
    if ((old & m) !== 0) {
      w[idx] = old & ~m;
      n--;
    }
  }
  return fromWords(w, n);
}

function orArrayIntoWords(words: Uint32Array, base: number, x: ArrayContainer): void {
  const a = x.a;
  for (let i = 0; i < x.n; i++) {
    const v = a[i]!;
    words[base + (v >>> 5)]! |= 1 << (v & 31);
  }
}

// ---------------------------------------------------------------- the bitmap

export class Bitmap {
  /** Containers by chunk number (value >>> 16); holes are empty chunks. */
  c: (Container | undefined)[];

  constructor(containers: (Container | undefined)[] = []) {
    this.c = containers;
  }

  /** Values 0 … n−1. */
  static range(n: number): Bitmap {
    const out = new Bitmap();
    for (let key = 0; key * 65536 < n; key++) {
      const len = Math.min(65536, n - key * 65536);
      if (len <= ARRAY_MAX) {
        const a = u16(len);
        for (let i = 0; i < len; i++) a[i] = i;
        out.c[key] = new ArrayContainer(a, len);
      } else {
        const w = u32(WORDS);
        const full = len >>> 5;
        w.fill(0xffffffff, 0, full);
        if (len & 31) w[full] = (1 << (len & 31)) - 1;
        out.c[key] = new BitsetContainer(w, len);
      }
    }
    return out;
  }

  /** From ascending, distinct values (the first `len` of `values`). */
  static fromSorted(values: ArrayLike<number>, len = values.length): Bitmap {
    const out = new Bitmap();
    let i = 0;
    while (i < len) {
      const key = values[i]! >>> 16;
      let j = i;
      while (j < len && values[j]! >>> 16 === key) j++;
      const n = j - i;
      if (n <= ARRAY_MAX) {
        const a = u16(n);
        for (let k = 0; k < n; k++) a[k] = values[i + k]! & 0xffff;
        out.c[key] = new ArrayContainer(a, n);
      } else {
        const w = u32(WORDS);
        for (let k = i; k < j; k++) {
          const v = values[k]! & 0xffff;
          w[v >>> 5]! |= 1 << (v & 31);
        }
        out.c[key] = new BitsetContainer(w, n);
      }
      i = j;
    }
    return out;
  }

  static of(...values: number[]): Bitmap {
    const out = new Bitmap();
    for (const v of values) out.add(v);
    return out;
  }

  /** From a plain bitset (bit x of word x>>>5); the words are not kept. */
  static fromWords(words: Uint32Array): Bitmap {
    const out = new Bitmap();
    for (let key = 0; key * WORDS < words.length; key++) {
      const start = key * WORDS;
      const end = Math.min(words.length, start + WORDS);
      const n = countWords(words.subarray(start, end));
      if (n === 0) continue;
      const w = u32(WORDS);
      w.set(words.subarray(start, end));
      out.c[key] = fromWords(w, n);
    }
    return out;
  }

  get size(): number {
    let n = 0;
    const c = this.c;
    for (let i = 0; i < c.length; i++) {
      const x = c[i];
      if (x) n += x.n;
    }
    return n;
  }

  isEmpty(): boolean {
    for (const x of this.c) if (x && x.n > 0) return false;
    return true;
  }

  has(x: number): boolean {
    const cont = this.c[x >>> 16];
    return cont !== undefined && hasIn(cont, x & 0xffff);
  }

  /** Insert a value that is greater than every value present (fast path of `add`). */
  append(x: number): void {
    const key = x >>> 16;
    const low = x & 0xffff;
    let cont = this.c[key];
    if (cont === undefined) {
      this.c[key] = new ArrayContainer(Uint16Array.of(low, 0, 0, 0), 1);
      return;
    }
    if (cont.kind === 1) {
      const m = 1 << (low & 31);
      if ((cont.w[low >>> 5]! & m) === 0) {
        cont.w[low >>> 5]! |= m;
        cont.n++;
      }
      return;
    }
    if (cont.n > 0 && cont.a[cont.n - 1]! >= low) {
      if (cont.a[cont.n - 1] === low) return;
      this.add(x);
      return;
    }
    if (cont.n >= ARRAY_MAX) {
      cont = arrayToBits(cont);
      this.c[key] = cont;
      cont.w[low >>> 5]! |= 1 << (low & 31);
      cont.n++;
      return;
    }
    if (cont.n === cont.a.length) {
      const grown = new Uint16Array(Math.min(ARRAY_MAX, cont.a.length * 2));
      grown.set(cont.a);
      cont.a = grown;
    }
    cont.a[cont.n++] = low;
  }

  add(x: number): void {
    const key = x >>> 16;
    const low = x & 0xffff;
    const cont = this.c[key];
    if (cont === undefined) {
      this.c[key] = new ArrayContainer(Uint16Array.of(low, 0, 0, 0), 1);
      return;
    }
    if (cont.kind === 1) {
      const m = 1 << (low & 31);
      if ((cont.w[low >>> 5]! & m) === 0) {
        cont.w[low >>> 5]! |= m;
        cont.n++;
      }
      return;
    }
    const pos = searchU16(cont.a, cont.n, low);
    if (pos >= 0) return;
    const at = -pos - 1;
    if (cont.n >= ARRAY_MAX) {
      const bits = arrayToBits(cont);
      bits.w[low >>> 5]! |= 1 << (low & 31);
      bits.n++;
      this.c[key] = bits;
      return;
    }
    if (cont.n === cont.a.length) {
      const grown = new Uint16Array(Math.min(ARRAY_MAX, Math.max(4, cont.a.length * 2)));
      grown.set(cont.a);
      cont.a = grown;
    }
    cont.a.copyWithin(at + 1, at, cont.n);
    cont.a[at] = low;
    cont.n++;
  }

  remove(x: number): void {
    const key = x >>> 16;
    const low = x & 0xffff;
    const cont = this.c[key];
    if (cont === undefined) return;
    if (cont.kind === 1) {
      const m = 1 << (low & 31);
      if ((cont.w[low >>> 5]! & m) !== 0) {
        cont.w[low >>> 5]! &= ~m;
        cont.n--;
        if (cont.n === 0) this.c[key] = undefined;
        else if (cont.n <= ARRAY_MAX / 2) this.c[key] = bitsToArray(cont.w, cont.n);
      }
      return;
    }
    const pos = searchU16(cont.a, cont.n, low);
    if (pos < 0) return;
    cont.a.copyWithin(pos, pos + 1, cont.n);
    cont.n--;
    if (cont.n === 0) this.c[key] = undefined;
  }

  clone(): Bitmap {
    return new Bitmap(this.c.map((x) => (x ? copyContainer(x) : undefined)));
  }

  /**
   * The same set, with every container of more than `min` values as a bitset. For a set kept to
   * be intersected again and again (a remembered filter): a bitset meets a bitset in one SIMD
   * pass, where an array of 3,000 values met a bitset in a branchy loop ten times as long.
   */
  withBitsets(min = 256): Bitmap {
    return new Bitmap(this.c.map((x) => (x !== undefined && x.kind === 0 && x.n > min ? arrayToBits(x) : x)));
  }

  and(other: Bitmap): Bitmap {
    const out = new Bitmap();
    const n = Math.min(this.c.length, other.c.length);
    for (let k = 0; k < n; k++) {
      const x = this.c[k];
      const y = other.c[k];
      if (x && y) {
        const r = andC(x, y);
        if (r) out.c[k] = r;
      }
    }
    return out;
  }

  or(other: Bitmap): Bitmap {
    const out = new Bitmap();
    const n = Math.max(this.c.length, other.c.length);
    for (let k = 0; k < n; k++) {
      const x = this.c[k];
      const y = other.c[k];
      if (x && y) out.c[k] = orC(x, y);
      else if (x) out.c[k] = copyContainer(x);
      else if (y) out.c[k] = copyContainer(y);
    }
    return out;
  }

  andNot(other: Bitmap): Bitmap {
    const out = new Bitmap();
    for (let k = 0; k < this.c.length; k++) {
      const x = this.c[k];
      if (!x) continue;
      const y = other.c[k];
      const r = y ? andNotC(x, y) : copyContainer(x);
      if (r) out.c[k] = r;
    }
    return out;
  }

  /** |this ∩ other| without building the intersection when both sides are bitsets. */
  andSize(other: Bitmap): number {
    let total = 0;
    const n = Math.min(this.c.length, other.c.length);
    for (let k = 0; k < n; k++) {
      const x = this.c[k];
      const y = other.c[k];
      if (!x || !y) continue;
      if (x.kind === 1 && y.kind === 1) total += andCount(x.w, y.w);
      else total += andC(x, y)?.n ?? 0;
    }
    return total;
  }

  forEach(fn: (x: number) => void): void {
    const c = this.c;
    for (let k = 0; k < c.length; k++) {
      const cont = c[k];
      if (!cont) continue;
      const base = k << 16;
      if (cont.kind === 0) {
        const a = cont.a;
        for (let i = 0; i < cont.n; i++) fn(base | a[i]!);
      } else {
        const w = cont.w;
        for (let i = 0; i < WORDS; i++) {
          let word = w[i]!;
          while (word !== 0) {
            const t = word & -word;
            fn(base | (i << 5) | (31 - Math.clz32(t)));
            word ^= t;
          }
        }
      }
    }
  }

  /** All values in ascending order (into `into` when it is large enough: a view of it). */
  toArray(into?: Uint32Array): Uint32Array {
    const size = this.size;
    const out = into && into.length >= size ? into.subarray(0, size) : new Uint32Array(size);
    let k = 0;
    const c = this.c;
    for (let key = 0; key < c.length; key++) {
      const cont = c[key];
      if (!cont) continue;
      const base = key << 16;
      if (cont.kind === 0) {
        const a = cont.a;
        for (let i = 0; i < cont.n; i++) out[k++] = base | a[i]!;
      } else {
        const w = cont.w;
        for (let i = 0; i < WORDS; i++) {
          let word = w[i]!;
          while (word !== 0) {
            const t = word & -word;
            out[k++] = base | (i << 5) | (31 - Math.clz32(t));
            word ^= t;
          }
        }
      }
    }
    return out;
  }

  /** A plain bitset covering at least `nbits` values (bit x of word x>>>5). */
  toWords(nbits: number): Uint32Array {
    const len = Math.max(Math.ceil(nbits / 32), this.c.length * WORDS);
    const out = u32(len);
    const c = this.c;
    for (let key = 0; key < c.length; key++) {
      const cont = c[key];
      // a bitset is copied whole (the words are zero, so OR is a copy)
      if (cont?.kind === 1) out.set(cont.w, key * WORDS);
      else if (cont) orArrayIntoWords(out, key * WORDS, cont);
    }
    return out;
  }

  /** OR this bitmap into a plain bitset large enough to hold it. */
  orInto(words: Uint32Array): void {
    const c = this.c;
    for (let key = 0; key < c.length; key++) {
      const cont = c[key];
      if (!cont) continue;
      const base = key * WORDS;
      if (cont.kind === 1) {
        const w = cont.w;
        const end = Math.min(WORDS, words.length - base);
        for (let i = 0; i < end; i++) words[base + i]! |= w[i]!;
      } else orArrayIntoWords(words, base, cont);
    }
  }

  /** The k-th smallest value (0-based), or −1. */
  select(k: number): number {
    for (let key = 0; key < this.c.length; key++) {
      const cont = this.c[key];
      if (!cont) continue;
      if (k >= cont.n) {
        k -= cont.n;
        continue;
      }
      if (cont.kind === 0) return (key << 16) | cont.a[k]!;
      for (let i = 0; i < WORDS; i++) {
        const n = popcount(cont.w[i]!);
        if (k >= n) {
          k -= n;
          continue;
        }
        let word = cont.w[i]!;
        while (k-- > 0) word &= word - 1;
        return (key << 16) | (i << 5) | ctz(word);
      }
    }
    return -1;
  }

  /** Bytes held by the containers (capacity included). */
  byteSize(): number {
    let n = 0;
    for (const x of this.c) if (x) n += x.kind === 0 ? x.a.byteLength : x.w.byteLength;
    return n;
  }

  /** Shrink array containers to their length (after bulk appends). */
  trim(): void {
    for (const x of this.c) if (x && x.kind === 0 && x.a.length > x.n) x.a = x.a.slice(0, x.n);
  }
}

/** Union of many bitmaps and sorted lists through one plain bitset. */
export class DenseAccumulator {
  readonly words: Uint32Array;

  constructor(nbits: number) {
    this.words = u32(Math.max(1, Math.ceil(nbits / 32)));
  }

  addSorted(values: ArrayLike<number>, len = values.length): void {
    const w = this.words;
    for (let i = 0; i < len; i++) {
      const v = values[i]!;
      w[v >>> 5]! |= 1 << (v & 31);
    }
  }

  addBitmap(b: Bitmap): void {
    b.orInto(this.words);
  }

  toBitmap(): Bitmap {
    return Bitmap.fromWords(this.words);
  }
}
