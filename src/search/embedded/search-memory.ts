/**
 * Memory for the temporary arrays of one search. A search over a million documents builds half
 * a megabyte of short-lived bitmap containers and bitsets; as ArrayBuffers of their own, V8
 * counts them as external memory, and at a few hundred searches a second that count alone
 * starts a full mark-compact of the heap every half second (a quarter of the CPU, and pauses
 * of a hundred milliseconds). Inside `withSearchMemory` the arrays are views of a few buffers
 * that are zeroed and handed out again when the outermost search ends.
 *
 * Whatever outlives the search (a cache, state the index builds lazily) must be built inside
 * `outsideSearchMemory`, where arrays are allocated as usual. A view kept by mistake reads as
 * zeros after the search and as other searches' data later, so the engine's suites catch it.
 */

const CHUNK_BYTES = 1 << 20;
/** Past this much in one search, arrays are allocated as usual (the buffers stay allocated). */
const MAX_CHUNKS = 16;

const chunks: ArrayBuffer[] = [];
/** Bytes handed out of each chunk in the current search. */
const usedIn: number[] = [];
let current = 0;
let depth = 0;
let suspended = 0;

/** [buffer, byte offset] of `bytes` zeroed bytes, or null when the arrays are to be allocated. */
function take(bytes: number): [ArrayBuffer, number] | null {
  if (depth === 0 || suspended > 0 || bytes > CHUNK_BYTES) return null;
  const size = (bytes + 7) & ~7;
  if (chunks.length > 0 && usedIn[current]! + size > CHUNK_BYTES) {
    if (current + 1 >= MAX_CHUNKS) return null;
    current++;
  }
  if (current === chunks.length) {
    chunks.push(new ArrayBuffer(CHUNK_BYTES));
    usedIn.push(0);
  }
  const at = usedIn[current]!;
  usedIn[current] = at + size;
  return [chunks[current]!, at];
}

export function u16(length: number): Uint16Array {
  const t = take(length * 2);
  return t ? new Uint16Array(t[0], t[1], length) : new Uint16Array(length);
}

export function u32(length: number): Uint32Array {
  const t = take(length * 4);
  return t ? new Uint32Array(t[0], t[1], length) : new Uint32Array(length);
}

export function f64(length: number): Float64Array {
  const t = take(length * 8);
  return t ? new Float64Array(t[0], t[1], length) : new Float64Array(length);
}

/** Run one search; its temporary arrays come from (and go back to) the shared buffers. */
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
  for (let i = 0; i < chunks.length && i <= current; i++) {
    if (usedIn[i]! > 0) new Uint8Array(chunks[i]!, 0, usedIn[i]).fill(0);
    usedIn[i] = 0;
  }
  current = 0;
}
