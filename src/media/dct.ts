/**
 * The two-dimensional DCT-II of a square block, by separable rows then columns with a
 * precomputed cosine table. Pure and small: the perceptual hash needs only the low frequencies of
 * a 32×32 block, so `keep` limits the output to the top-left `keep × keep` coefficients and the
 * column pass computes only those.
 */

const tables = new Map<number, Float64Array>();

/** cos(π(2x+1)u / 2n) for u, x in [0, n), row u at u·n. */
function cosineTable(n: number): Float64Array {
  let table = tables.get(n);
  if (table === undefined) {
    table = new Float64Array(n * n);
    for (let u = 0; u < n; u++) for (let x = 0; x < n; x++) table[u * n + x] = Math.cos((Math.PI * (2 * x + 1) * u) / (2 * n));
    tables.set(n, table);
  }
  return table;
}

/**
 * Unnormalised DCT-II of the n×n block `input` (row-major), keeping the `keep × keep` lowest
 * frequencies: out[v·keep + u] = Σx Σy input[y·n + x]·cos(π(2x+1)u/2n)·cos(π(2y+1)v/2n).
 * Scale factors are left out: a hash compares coefficients with each other, never with a constant.
 */
export function dct2(input: ArrayLike<number>, n: number, keep = n): Float64Array {
  if (input.length !== n * n) throw new RangeError(`dct2 needs ${n * n} samples, got ${input.length}`);
  if (keep < 1 || keep > n) throw new RangeError(`keep must be in 1..${n}`);
  const cos = cosineTable(n);
  // rows: row y, frequency u
  const rows = new Float64Array(n * keep);
  for (let y = 0; y < n; y++) {
    for (let u = 0; u < keep; u++) {
      let sum = 0;
      for (let x = 0; x < n; x++) sum += (input[y * n + x] as number) * (cos[u * n + x] as number);
      rows[y * keep + u] = sum;
    }
  }
  const out = new Float64Array(keep * keep);
  for (let v = 0; v < keep; v++) {
    for (let u = 0; u < keep; u++) {
      let sum = 0;
      for (let y = 0; y < n; y++) sum += (rows[y * keep + u] as number) * (cos[v * n + y] as number);
      out[v * keep + u] = sum;
    }
  }
  return out;
}
