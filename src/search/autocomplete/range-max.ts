/**
 * The largest values of ranges of an array, best first: a segment tree of the argmax of each
 * node, and a heap of sub-ranges. `top` yields the positions of one or more ranges in
 * descending value order, `log n` per step, so the most used of 200,000 tags starting with `a`
 * are found without looking at the others. Values can change in place (`set`).
 */
export class RangeMax {
  private readonly size: number;
  /** tree[node] = position of the largest value under the node (-1 for none). */
  private readonly tree: Int32Array;

  constructor(private readonly values: Int32Array) {
    let size = 1;
    while (size < values.length) size *= 2;
    this.size = size;
    this.tree = new Int32Array(2 * size).fill(-1);
    for (let i = 0; i < values.length; i++) this.tree[size + i] = i;
    for (let node = size - 1; node >= 1; node--) this.tree[node] = this.better(this.tree[2 * node]!, this.tree[2 * node + 1]!);
  }

  /** The better of two positions: larger value, then the lower position. */
  private better(a: number, b: number): number {
    if (a < 0) return b;
    if (b < 0) return a;
    const va = this.values[a]!;
    const vb = this.values[b]!;
    return vb > va || (vb === va && b < a) ? b : a;
  }

  set(position: number, value: number): void {
    this.values[position] = value;
    for (let node = (this.size + position) >> 1; node >= 1; node >>= 1) this.tree[node] = this.better(this.tree[2 * node]!, this.tree[2 * node + 1]!);
  }

  /** Position of the largest value in `[lo, hi)`, or -1 for an empty range. */
  argmax(lo: number, hi: number): number {
    let best = -1;
    for (let l = lo + this.size, r = hi + this.size; l < r; l >>= 1, r >>= 1) {
      if (l & 1) best = this.better(best, this.tree[l++]!);
      if (r & 1) best = this.better(best, this.tree[--r]!);
    }
    return best;
  }

  /** Positions of the ranges `[lo, hi)` (disjoint), largest value first. */
  *top(ranges: readonly (readonly [number, number])[]): Generator<number> {
    const heap: [number, number, number][] = []; // [position, lo, hi]
    const push = (lo: number, hi: number) => {
      if (lo >= hi) return;
      const at = this.argmax(lo, hi);
      heap.push([at, lo, hi]);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!this.above(heap[i]![0], heap[parent]![0])) break;
        [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
        i = parent;
      }
    };
    for (const [lo, hi] of ranges) push(lo, hi);
    while (heap.length > 0) {
      const [at, lo, hi] = heap[0]!;
      const last = heap.pop()!;
      if (heap.length > 0) {
        heap[0] = last;
        for (let i = 0; ; ) {
          const l = 2 * i + 1;
          const r = l + 1;
          let m = i;
          if (l < heap.length && this.above(heap[l]![0], heap[m]![0])) m = l;
          if (r < heap.length && this.above(heap[r]![0], heap[m]![0])) m = r;
          if (m === i) break;
          [heap[i], heap[m]] = [heap[m]!, heap[i]!];
          i = m;
        }
      }
      yield at;
      push(lo, at);
      push(at + 1, hi);
    }
  }

  private above(a: number, b: number): boolean {
    return this.better(a, b) === a && a !== b;
  }
}
