/**
 * The containers of a roaring bitmap (bitmap.ts): one chunk of 65,536 values, held either as a
 * sorted Uint16Array of the low bits (at most 4,096 values) or as a 2,048-word bitset, and the
 * algebra on pairs of them (and, or, and-not), which never mutates its operands. Temporaries
 * live in search memory.
 */
import { andNotWords, andWords, CONTAINER_WORDS, orWords } from './bitset-kernels.js';
import { inSearchMemory, u16, u32 } from '../search-memory.js';


export const ARRAY_MAX = 4096;
export const WORDS = CONTAINER_WORDS;

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

export function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Index of the lowest set bit of a non-zero 32-bit word. */
export function ctz(x: number): number {
  return 31 - Math.clz32(x & -x);
}

export function bitsToArray(w: Uint32Array, n: number): ArrayContainer {
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

export function arrayToBits(c: ArrayContainer): BitsetContainer {
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
export function fromWords(w: Uint32Array, n: number): Container | undefined {
  if (n === 0) return undefined;
  return n <= (inSearchMemory(w) ? TEMPORARY_ARRAY_MAX : ARRAY_MAX) ? bitsToArray(w, n) : new BitsetContainer(w, n);
}

export function copyContainer(c: Container): Container {
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

export function hasIn(c: Container, low: number): boolean {
  if (c.kind === 1) return (c.w[low >>> 5]! & (1 << (low & 31))) !== 0;
  return searchU16(c.a, c.n, low) >= 0;
}

/** Binary search: index of v, or −(insertion point) − 1. */
export function searchU16(a: Uint16Array, n: number, v: number): number {
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

export function andC(x: Container, y: Container): Container | undefined {
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

export function orC(x: Container, y: Container): Container {
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

export function andNotC(x: Container, y: Container): Container | undefined {
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

export function orArrayIntoWords(words: Uint32Array, base: number, x: ArrayContainer): void {
  const a = x.a;
  for (let i = 0; i < x.n; i++) {
    const v = a[i]!;
    words[base + (v >>> 5)]! |= 1 << (v & 31);
  }
}
