/**
 * Memory for the temporary arrays of one search. A search over a million documents builds half
 * a megabyte of short-lived bitmap containers and bitsets; as ArrayBuffers of their own, V8
 * counts them as external memory, and at a few hundred searches a second that count alone
 * starts a full mark-compact of the heap every half second (a quarter of the CPU, and pauses
 * of a hundred milliseconds). Inside `withSearchMemory` the arrays are views of a few chunks
 * of one memory, zeroed and handed out again when the outermost search ends. That memory is a
 * WebAssembly memory, so that the bitset kernels (bitset-kernels.ts) work on the temporaries
 * where they are; past the chunks it keeps a page of scratch slots for the kernels.
 *
 * Whatever outlives the search (a cache, state the index builds lazily) must be built inside
 * `outsideSearchMemory`, where arrays are allocated as usual. A view kept by mistake reads as
 * zeros after the search and as other searches' data later, so the engine's suites catch it.
 */

const CHUNK_BYTES = 1 << 20;
/** Past this much in one search, arrays are allocated as usual. */
const MAX_CHUNKS = 16;

const PAGE_BYTES = 1 << 16;
/** Where the kernels' scratch slots begin (one page is theirs). */
export const KERNEL_SCRATCH_OFFSET = MAX_CHUNKS * CHUNK_BYTES;
/** A fixed size: a memory that grew would detach every view of it. */
export const searchMemory = new WebAssembly.Memory({
  initial: KERNEL_SCRATCH_OFFSET / PAGE_BYTES + 1,
  maximum: KERNEL_SCRATCH_OFFSET / PAGE_BYTES + 1,
});
const buffer = searchMemory.buffer;

/** Chunks in use so far (they are never given back), and the bytes handed out of each. */
let chunks = 0;
const usedIn: number[] = [];
let current = 0;
let depth = 0;
let suspended = 0;

/** Byte offset of `bytes` zeroed bytes in the memory, or −1 when the arrays are to be allocated. */
function take(bytes: number): number {
  if (depth === 0 || suspended > 0 || bytes > CHUNK_BYTES) return -1;
  // 16-byte alignment suits the kernels' vector loads
  const size = (bytes + 15) & ~15;
  if (chunks > 0 && usedIn[current]! + size > CHUNK_BYTES) {
    if (current + 1 >= MAX_CHUNKS) return -1;
    current++;
  }
  if (current === chunks) {
    chunks++;
    usedIn.push(0);
  }
  const at = usedIn[current]!;
  usedIn[current] = at + size;
  return current * CHUNK_BYTES + at;
}

/** Whether an array is a view of search memory (a temporary of the current search). */
export function inSearchMemory(a: ArrayBufferView): boolean {
  return a.buffer === buffer;
}

export function u16(length: number): Uint16Array {
  const at = take(length * 2);
  return at >= 0 ? new Uint16Array(buffer, at, length) : new Uint16Array(length);
}

export function u32(length: number): Uint32Array {
  const at = take(length * 4);
  return at >= 0 ? new Uint32Array(buffer, at, length) : new Uint32Array(length);
}

export function f64(length: number): Float64Array {
  const at = take(length * 8);
  return at >= 0 ? new Float64Array(buffer, at, length) : new Float64Array(length);
}

/** Run one search; its temporary arrays come from (and go back to) search memory. */
export function withSearchMemory<T>(search: () => T): T {
  depth++;
  try {
    return search();
  } finally {
    if (--depth === 0) release();
  }
}

/** Run `build` with ordinary allocation: for what outlives the search. */
export function outsideSearchMemory<T>(build: () => T): T {
  suspended++;
  try {
    return build();
  } finally {
    suspended--;
  }
}

function release(): void {
  for (let i = 0; i < chunks && i <= current; i++) {
    if (usedIn[i]! > 0) new Uint8Array(buffer, i * CHUNK_BYTES, usedIn[i]).fill(0);
    usedIn[i] = 0;
  }
  current = 0;
}
