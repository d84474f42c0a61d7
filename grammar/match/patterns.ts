/**
 * Keyword matching primitives with OpenSearch (Lucene) semantics, shared by the DSL evaluator and
 * the embedded engine: term order, wildcard patterns, fuzziness and bounded edit distance. Pure
 * code.
 */

export type WildcardMatcher = (value: string) => boolean;

const CACHE_LIMIT = 10_000;
const sensitiveCache = new Map<string, WildcardMatcher>();
const insensitiveCache = new Map<string, WildcardMatcher>();

interface WildcardParts {
  /** Literal runs and wildcard tokens: a string is literal text, 0 is `*`, 1 is `?`. */
  parts: Array<string | 0 | 1>;
}

/** Splits a pattern into literal runs (escapes resolved) and `*` / `?` tokens. */
function parseWildcard(pattern: string): WildcardParts {
  const parts: Array<string | 0 | 1> = [];
  let literal = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === '\\') {
      // `\x` is the literal x; a trailing lone backslash is a literal backslash (as Lucene)
      if (i + 1 < pattern.length) {
        const cp = pattern.codePointAt(i + 1) as number;
        const next = String.fromCodePoint(cp);
        literal += next;
        i += next.length;
      } else {
        literal += '\\';
      }
    } else if (ch === '*' || ch === '?') {
      if (literal !== '') parts.push(literal);
      literal = '';
      const token = ch === '*' ? 0 : 1;
      // collapse runs of `*`
      if (!(token === 0 && parts[parts.length - 1] === 0)) parts.push(token);
    } else {
      literal += ch;
    }
  }
  if (literal !== '') parts.push(literal);
  return { parts };
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function buildMatcher(pattern: string, caseInsensitive: boolean): WildcardMatcher {
  const { parts } = parseWildcard(caseInsensitive ? pattern.toLowerCase() : pattern);
  const norm = caseInsensitive ? (v: string) => v.toLowerCase() : null;
  const wrap = (f: WildcardMatcher): WildcardMatcher => (norm ? (v) => f(norm(v)) : f);

  // fast paths for the shapes the compiler emits most often
  if (parts.length === 0) return (v) => v === '';
  if (parts.length === 1) {
    const p = parts[0] as string | 0 | 1;
    if (typeof p === 'string') return wrap((v) => v === p);
    if (p === 0) return () => true;
  }
  if (parts.length === 2 && typeof parts[0] === 'string' && parts[1] === 0) {
    const prefix = parts[0];
    return wrap((v) => v.startsWith(prefix));
  }
  if (parts.length === 2 && parts[0] === 0 && typeof parts[1] === 'string') {
    const suffix = parts[1];
    return wrap((v) => v.endsWith(suffix));
  }
  if (parts.length === 3 && parts[0] === 0 && typeof parts[1] === 'string' && parts[2] === 0) {
    const infix = parts[1];
    return wrap((v) => v.includes(infix));
  }

  // general case: an anchored regex; `?` is exactly one code point
  let source = '^';
  for (const p of parts) {
    source += p === 0 ? '[^]*' : p === 1 ? '[^]' : escapeRegex(p);
  }
  source += '$';
  const re = new RegExp(source, caseInsensitive ? 'iu' : 'u');
  return (v) => re.test(v);
}

/**
 * Compiles an OpenSearch wildcard pattern into a matcher of whole values: `*` matches zero or more
 * characters, `?` exactly one (one code point), `\` escapes the next character; anchored at both
 * ends and case-sensitive unless `caseInsensitive`. Matchers are cached.
 */
export function compileWildcard(pattern: string, caseInsensitive = false): WildcardMatcher {
  const cache = caseInsensitive ? insensitiveCache : sensitiveCache;
  let m = cache.get(pattern);
  if (m === undefined) {
    m = buildMatcher(pattern, caseInsensitive);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(pattern, m);
  }
  return m;
}

/**
 * The literal text before the first unescaped `*` or `?` (escapes resolved), so an engine can
 * range-scan a sorted term dictionary for candidates: every matching value starts with it.
 */
export function wildcardLiteralPrefix(pattern: string): string {
  let prefix = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === '*' || ch === '?') return prefix;
    if (ch === '\\') {
      if (i + 1 < pattern.length) {
        const next = String.fromCodePoint(pattern.codePointAt(i + 1) as number);
        prefix += next;
        i += next.length;
      } else {
        prefix += '\\';
      }
    } else {
      prefix += ch;
    }
  }
  return prefix;
}

/**
 * The literal runs of a pattern (escapes resolved), in order. Every matching value contains each
 * of them, so an engine can look for the longest one with a substring search before matching.
 */
export function wildcardLiterals(pattern: string): string[] {
  return parseWildcard(pattern).parts.filter((p): p is string => typeof p === 'string');
}

/** Whether the pattern has any unescaped `*` or `?` (if not, it is an exact term). */
export function hasWildcard(pattern: string): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') i++;
    else if (ch === '*' || ch === '?') return true;
  }
  return false;
}

/** Code point order, as Lucene compares terms (UTF-8 byte order). */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      // surrogates (astral code points) sort after every BMP code point
      if (x >= 0xd800 && x <= 0xdfff) x += 0x10000;
      if (y >= 0xd800 && y <= 0xdfff) y += 0x10000;
      return x - y;
    }
  }
  return a.length - b.length;
}

/** Number of code points of a string. */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

const AUTO_RE = /^auto(?::(\d+),(\d+))?$/i;

/**
 * The maximum number of edits a fuzzy query allows for `value`:
 * - a number (or its string): min(trunc(f), 2), so `~0.8` allows no edit: OpenSearch 2.x
 *   (`Fuzziness.asDistance`) no longer reads a fraction as a relative similarity;
 * - `AUTO` / `AUTO:low,high` (Lucene defaults 3 and 6): 0 edits below `low` code points, 1 below
 *   `high`, else 2.
 * Throws on anything else (negative, NaN, unknown strings), as OpenSearch rejects them.
 */
export function fuzzyMaxEdits(value: string, fuzziness: number | string): number {
  if (typeof fuzziness === 'string') {
    const trimmed = fuzziness.trim();
    const auto = AUTO_RE.exec(trimmed);
    if (auto) {
      const low = auto[1] === undefined ? 3 : Number(auto[1]);
      const high = auto[2] === undefined ? 6 : Number(auto[2]);
      const len = codePointLength(value);
      return len < low ? 0 : len < high ? 1 : 2;
    }
    if (trimmed === '' || !/^[+]?(\d+\.?\d*|\.\d+)$/.test(trimmed)) {
      throw new Error(`Invalid fuzziness: ${fuzziness}`);
    }
    fuzziness = Number(trimmed);
  }
  if (!Number.isFinite(fuzziness) || fuzziness < 0) {
    throw new Error(`Invalid fuzziness: ${String(fuzziness)}`);
  }
  return Math.min(Math.trunc(fuzziness), 2);
}

// Reused DP rows, grown on demand (the module is single-threaded).
let rowA = new Int32Array(64);
let rowB = new Int32Array(64);
let rowC = new Int32Array(64);

function hasSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) return true;
  }
  return false;
}

function toCodePoints(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0) as number);
  return out;
}

/**
 * Whether `a` and `b` are within `maxEdits` edits, counting insertions, deletions, substitutions
 * and (with `transpositions`, the default as in Lucene's fuzzy query) a swap of two adjacent
 * characters as one edit each (optimal string alignment distance), by code points. Banded
 * dynamic programming with early exit: O(maxEdits · length).
 */
export function withinEditDistance(a: string, b: string, maxEdits: number, transpositions = true): boolean {
  if (a === b) return true;
  if (maxEdits <= 0) return false;
  if (hasSurrogate(a) || hasSurrogate(b)) {
    const x = toCodePoints(a);
    const y = toCodePoints(b);
    return bandedDistance(null, null, x, y, x.length, y.length, maxEdits, transpositions);
  }
  return bandedDistance(a, b, null, null, a.length, b.length, maxEdits, transpositions);
}

function bandedDistance(
  sa: string | null,
  sb: string | null,
  ca: ArrayLike<number> | null,
  cb: ArrayLike<number> | null,
  la: number,
  lb: number,
  k: number,
  transpositions: boolean,
): boolean {
  if (Math.abs(la - lb) > k) return false;
  if (la === 0 || lb === 0) return Math.max(la, lb) <= k;
  const at = sa !== null ? (i: number) => sa.charCodeAt(i) : (i: number) => (ca as ArrayLike<number>)[i] as number;
  const bt = sb !== null ? (j: number) => sb.charCodeAt(j) : (j: number) => (cb as ArrayLike<number>)[j] as number;
  if (rowA.length < lb + 2) {
    const size = lb + 2;
    rowA = new Int32Array(size);
    rowB = new Int32Array(size);
    rowC = new Int32Array(size);
  }
  const INF = k + 1;
  let pp = rowA; // row i-2
  let prev = rowB; // row i-1
  let cur = rowC; // row i
  for (let j = 0; j <= lb + 1; j++) prev[j] = j <= k ? j : INF;
  for (let i = 1; i <= la; i++) {
    const lo = Math.max(1, i - k);
    const hi = Math.min(lb, i + k);
    cur[lo - 1] = lo === 1 ? i : INF;
    let rowMin = cur[lo - 1] as number;
    const ai = at(i - 1);
    const aPrev = i > 1 ? at(i - 2) : -1;
    for (let j = lo; j <= hi; j++) {
      const bj = bt(j - 1);
      let v = (prev[j - 1] as number) + (ai === bj ? 0 : 1);
      const del = (prev[j] as number) + 1;
      if (del < v) v = del;
      const ins = (cur[j - 1] as number) + 1;
      if (ins < v) v = ins;
      if (transpositions && i > 1 && j > 1 && ai !== bj && ai === bt(j - 2) && aPrev === bj) {
        const tr = (pp[j - 2] as number) + 1;
        if (tr < v) v = tr;
      }
      if (v > INF) v = INF;
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (hi < lb) cur[hi + 1] = INF;
    if (rowMin > k) return false;
    const t = pp;
    pp = prev;
    prev = cur;
    cur = t;
  }
  return (prev[lb] as number) <= k;
}

/** The bounded edit distance itself (for tests and diagnostics): the distance, or maxEdits + 1. */
export function editDistanceUpTo(a: string, b: string, maxEdits: number, transpositions = true): number {
  for (let k = 0; k <= maxEdits; k++) {
    if (withinEditDistance(a, b, k, transpositions)) return k;
  }
  return maxEdits + 1;
}
