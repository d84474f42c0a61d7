/**
 * The word loops of bitset containers (2,048 words, 65,536 bits) in WebAssembly SIMD. A loop of
 * JavaScript over typed arrays manages some 4 ns a word here, and the population count it must
 * keep (containers know their size) nearly doubles that: an AND of two million-bit bitmaps took
 * a quarter of a millisecond, and a search makes several. 128-bit lanes with a byte-wise
 * population count do the same in a tenth of the time, copies in and out included.
 *
 * WebAssembly reads only its own memory, which here is search memory (search-memory.ts): the
 * temporaries of a search are already there. Words that live elsewhere (an index's postings, a
 * remembered filter, anything built outside a search) are copied into scratch slots first, and
 * a result bound for elsewhere is copied out of one.
 */

import { inSearchMemory, KERNEL_SCRATCH_OFFSET, searchMemory } from '../search-memory.js';

/** Words of a bitset container, and its bytes. */
export const CONTAINER_WORDS = 2048;
const BYTES = CONTAINER_WORDS * 4;

// ---------------------------------------------------------------- the module, assembled here

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};
const name = (s: string): number[] => [...uleb(s.length), ...Buffer.from(s, 'utf8')];
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const simd = (op: number): number[] => [0xfd, ...uleb(op)];

const I32 = 0x7f;
const V128 = 0x7b;
const local = { get: 0x20, set: 0x21, tee: 0x22 };
const I32_ADD = 0x6a;
const I32_GE_U = 0x4f;
const I32_CONST = 0x41;
const [BLOCK, LOOP, BR, BR_IF, END, VOID] = [0x02, 0x03, 0x0c, 0x0d, 0x0b, 0x40];
const V128_LOAD = 0x00;
const V128_STORE = 0x0b;
const V128_CONST = 0x0c;
const I32X4_EXTRACT_LANE = 0x1b;
const V128_AND = 0x4e;
const V128_ANDNOT = 0x4f;
const V128_OR = 0x50;
const I8X16_POPCNT = 0x62;
const I16X8_EXTADD_PAIRWISE_I8X16_U = 0x7d;
const I32X4_EXTADD_PAIRWISE_I16X8_U = 0x7f;
const I16X8_ADD = 0x8e;
/** memarg of a 16-byte access: alignment 2^4, offset 0. */
const MEMARG = [4, 0];

/**
 * `(x, y, out, bytes) → count`: out[i] = x[i] op y[i] over `bytes` (a multiple of 16), and the
 * number of bits set in out. Lane sums are 16-bit: at most 4,096 iterations (64 KiB) a call.
 * Locals: 0 x, 1 y, 2 out, 3 bytes, 4 i, 5 the lane sums, 6 the current vector.
 */
function binaryKernel(op: number | null): number[] {
  const body: number[] = [
    ...simd(V128_CONST), ...new Array<number>(16).fill(0), local.set, 5,
    BLOCK, VOID, LOOP, VOID,
    local.get, 4, local.get, 3, I32_GE_U, BR_IF, 1,
    local.get, 0, local.get, 4, I32_ADD, ...simd(V128_LOAD), ...MEMARG,
  ];
  if (op !== null) body.push(local.get, 1, local.get, 4, I32_ADD, ...simd(V128_LOAD), ...MEMARG, ...simd(op));
  body.push(local.set, 6);
  if (op !== null) body.push(local.get, 2, local.get, 4, I32_ADD, local.get, 6, ...simd(V128_STORE), ...MEMARG);
  body.push(
    local.get, 5, local.get, 6, ...simd(I8X16_POPCNT), ...simd(I16X8_EXTADD_PAIRWISE_I8X16_U), ...simd(I16X8_ADD), local.set, 5,
    local.get, 4, I32_CONST, 16, I32_ADD, local.set, 4,
    BR, 0, END, END,
    local.get, 5, ...simd(I32X4_EXTADD_PAIRWISE_I16X8_U), local.tee, 6, ...simd(I32X4_EXTRACT_LANE), 0,
    local.get, 6, ...simd(I32X4_EXTRACT_LANE), 1, I32_ADD,
    local.get, 6, ...simd(I32X4_EXTRACT_LANE), 2, I32_ADD,
    local.get, 6, ...simd(I32X4_EXTRACT_LANE), 3, I32_ADD,
    END,
  );
  const fn = [...vec([[1, I32], [2, V128]]), ...body];
  return [...uleb(fn.length), ...fn];
}

const KERNELS: Array<[string, number | null]> = [
  ['and', V128_AND],
  ['andNot', V128_ANDNOT],
  ['or', V128_OR],
  ['count', null],
];

function assemble(): Uint8Array {
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, 4, I32, I32, I32, I32, 1, I32]])),
    ...section(2, vec([[...name('env'), ...name('memory'), 0x02, 0x00, 0x01]])),
    ...section(3, vec(KERNELS.map(() => [0]))),
    ...section(7, vec(KERNELS.map(([n], i) => [...name(n), 0x00, i]))),
    ...section(10, vec(KERNELS.map(([, op]) => binaryKernel(op)))),
  ]);
}

type Kernel = (x: number, y: number, out: number, bytes: number) => number;
const exports = new WebAssembly.Instance(new WebAssembly.Module(assemble()), { env: { memory: searchMemory } }).exports as Record<
  string,
  Kernel
>;
const [kAnd, kAndNot, kOr, kCount] = KERNELS.map(([n]) => exports[n]!) as [Kernel, Kernel, Kernel, Kernel];

// ---------------------------------------------------------------- placing the words

const slots = [0, 1, 2].map((i) => new Uint32Array(searchMemory.buffer, KERNEL_SCRATCH_OFFSET + i * BYTES, CONTAINER_WORDS));

/** The byte offset of `w` in the module's memory, copying it to scratch slot `slot` if needed. */
function place(w: Uint32Array, slot: number): number {
  if (inSearchMemory(w)) return w.byteOffset;
  slots[slot]!.set(w);
  return slots[slot]!.byteOffset;
}

function apply(kernel: Kernel, x: Uint32Array, y: Uint32Array, out: Uint32Array): number {
  const a = place(x, 0);
  const b = place(y, 1);
  if (inSearchMemory(out)) return kernel(a, b, out.byteOffset, BYTES);
  const n = kernel(a, b, slots[2]!.byteOffset, BYTES);
  out.set(slots[2]!);
  return n;
}

/** out = x AND y (2,048 words each); the bits set in out. */
export function andWords(x: Uint32Array, y: Uint32Array, out: Uint32Array): number {
  return apply(kAnd, x, y, out);
}

/** out = x AND NOT y; the bits set in out. */
export function andNotWords(x: Uint32Array, y: Uint32Array, out: Uint32Array): number {
  return apply(kAndNot, x, y, out);
}

/** out = x OR y; the bits set in out. */
export function orWords(x: Uint32Array, y: Uint32Array, out: Uint32Array): number {
  return apply(kOr, x, y, out);
}

/** |x AND y| without keeping the intersection. */
export function andCount(x: Uint32Array, y: Uint32Array): number {
  return apply(kAnd, x, y, slots[2]!);
}

/** The bits set in at most 2,048 words. */
export function countWords(x: Uint32Array): number {
  if (x.length === CONTAINER_WORDS) return kCount(place(x, 0), 0, 0, BYTES);
  const slot = slots[0]!;
  slot.fill(0);
  slot.set(x);
  return kCount(slot.byteOffset, 0, 0, BYTES);
}
