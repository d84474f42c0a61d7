/**
 * mulberry32, a 32-bit seeded generator: small, fast and the same sequence on every machine, so a
 * seed names one board, one query mix or one fuzz corpus. Uniform in [0, 1). Not for secrets.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
