/** Hashing for the engine's open-addressing tables and random order: FNV-1a and murmur3's finalizer. */

/** FNV-1a's offset basis and one step, over bytes or UTF-16 code units. */
export const FNV_OFFSET = 0x811c9dc5;
export function fnvStep(h: number, unit: number): number {
  return Math.imul(h ^ unit, 0x01000193);
}

/** Murmur3's finalizer (fmix32): spreads every bit of `h` over the others, as an unsigned 32-bit value. */
export function finalizeHash(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
