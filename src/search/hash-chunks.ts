/**
 * How a 64-bit hash field is searchable by Hamming distance in an engine that only matches terms
 * (OpenSearch): beside the field `<f>` (16 hex digits) the document holds `<f>_chunks`, the four
 * 16-bit chunks as keyword terms `<chunk number><4 hex digits>`. Two hashes within distance d
 * share a chunk within ⌊d/4⌋ bits (pigeonhole), so the terms within that radius of the query's
 * chunks find every candidate, which is then verified on the whole hash. The embedded engine
 * builds the same chunk tables from `<f>` itself (embedded/terms/hamming-table.ts).
 */

export const CHUNKS = 4;

export function chunkField(field: string): string {
  return `${field}_chunks`;
}

/** The chunk terms of a 16-digit hex hash. */
export function chunkTerms(hash: string): string[] {
  return Array.from({ length: CHUNKS }, (_, j) => `${j}${hash.slice(4 * j, 4 * j + 4)}`);
}

/** Per chunk, the 4-digit hex values within `radius` bits of the hash's chunk (radius ≤ 16). */
export function chunkValuesWithin(hash: string, radius: number): string[][] {
  const masks: number[] = [];
  for (let m = 0; m < 1 << 16; m++) if (bitCount16(m) <= radius) masks.push(m);
  return Array.from({ length: CHUNKS }, (_, j) => {
    const value = parseInt(hash.slice(4 * j, 4 * j + 4), 16);
    return masks.map((m) => (value ^ m).toString(16).padStart(4, '0'));
  });
}

/** Every chunk term within `radius` bits of the hash's chunks. */
export function chunkTermsWithin(hash: string, radius: number): string[] {
  return chunkValuesWithin(hash, radius).flatMap((values, j) => values.map((v) => `${j}${v}`));
}

function bitCount16(x: number): number {
  let n = 0;
  for (let v = x; v !== 0; v &= v - 1) n++;
  return n;
}
