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
import { andCount, countWords } from './bitset-kernels.js';
import {
  andC,
  andNotC,
  ArrayContainer,
  arrayToBits,
  ARRAY_MAX,
  bitsToArray,
  BitsetContainer,
  copyContainer,
  ctz,
  fromWords,
  hasIn,
  orArrayIntoWords,
  orC,
  popcount,
  searchU16,
  WORDS,
  type Container,
} from './containers.js';
import { u16, u32 } from '../search-memory.js';

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
    const low = x & 0xffff;
    const cont = this.arrayToInsertInto(x >>> 16, low);
    if (cont === undefined) return;
    if (cont.n > 0 && cont.a[cont.n - 1]! >= low) {
      if (cont.a[cont.n - 1] !== low) this.add(x);
      return;
    }
    this.insertAt(x >>> 16, cont, cont.n, low);
  }

  add(x: number): void {
    const low = x & 0xffff;
    const cont = this.arrayToInsertInto(x >>> 16, low);
    if (cont === undefined) return;
    const pos = searchU16(cont.a, cont.n, low);
    if (pos >= 0) return;
    this.insertAt(x >>> 16, cont, -pos - 1, low);
  }

  /**
   * The steps `add` and `append` share: a new chunk gets an array container holding `low`, a
   * bitset container gets its bit. Returns the array container `low` has still to go into, if any.
   */
  private arrayToInsertInto(key: number, low: number): ArrayContainer | undefined {
    const cont = this.c[key];
    if (cont === undefined) {
      this.c[key] = new ArrayContainer(Uint16Array.of(low, 0, 0, 0), 1);
      return undefined;
    }
    if (cont.kind === 1) {
      const m = 1 << (low & 31);
      if ((cont.w[low >>> 5]! & m) === 0) {
        cont.w[low >>> 5]! |= m;
        cont.n++;
      }
      return undefined;
    }
    return cont;
  }

  /** Put `low`, not yet present, at position `at` of an array container; a full one becomes a bitset. */
  private insertAt(key: number, cont: ArrayContainer, at: number, low: number): void {
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
    if (at < cont.n) cont.a.copyWithin(at + 1, at, cont.n);
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
