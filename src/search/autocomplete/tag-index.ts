/**
 * The in-memory index of tag names that autocomplete reads. Three ways a name can match what
 * was typed, each ranked by image count:
 *
 * 1. prefix: the name starts with the term (`twi` → `twilight sparkle`; `artist:` → every
 *    artist tag), a binary search for the range of names and the best counts in it (RangeMax);
 * 2. words: the words of the term start words of the name in any order (`dash rain` →
 *    `rainbow dash`, `sparkle` → `twilight sparkle`, `jo` → `artist:john`), through a sorted
 *    list of the words of multi-word and namespaced names;
 * 3. typo: the start of the name is within one (terms of 3–4 characters) or two (longer) edits
 *    of the term, a transposition counting as one edit (`twilgiht` → `twilight sparkle`). As in
 *    OpenSearch's completion suggester, the first character is taken as typed (prefix length
 *    1), which keeps the walk to one letter's names. The sorted names are walked as a trie, one
 *    row of the optimal-string-alignment distance per prefix, pruned as soon as every cell of the
 *    row is over the limit. A namespaced term (`artist:jhon`) walks only that namespace.
 * 4. first-letter typo: when the tiers above leave room, the walk runs again from the first
 *    character with one edit in all (`pple`, `xpple`, `paple` → `apple`); one edit keeps this
 *    walk as small as a one-letter walk with two.
 *
 * Aliases are names of their own that complete to their target, with its count. Counts change in
 * place (`setCount`); new, renamed or removed names need a new index (`TagIndex.build`).
 */
import { TAG_NAMESPACES } from '../../../grammar/index.js';
import { RangeMax } from './range-max.js';

export interface IndexedTag {
  id: number;
  name: string;
  category: string | null;
  images: number;
  /** The tag this one is an alias of; aliases are suggested as their target. */
  aliasOf: number | null;
}

export type MatchKind = 'prefix' | 'words' | 'typo';

export interface TagSuggestion {
  /** The name that matched (an alias's own name). */
  name: string;
  /** The tag to insert: the name's tag, or an alias's target. */
  tag: IndexedTag;
  alias: boolean;
  match: MatchKind;
  distance: number;
}

/** How many candidates the word tier looks at before it gives up on finding more. */
const WORD_CANDIDATES = 1000;
/** Characters at the start of the term (after a namespace) that typos may not touch. */
const TYPO_PREFIX = 1;
/** Longer terms are not looked up with typos: the walk's cost grows with the term's length. */
const MAX_TYPO_TERM = 64;

/** The words of a name after its namespace. */
function wordsOf(name: string): string[] {
  const colon = name.indexOf(':');
  const rest = colon > 0 && TAG_NAMESPACES.includes(name.slice(0, colon)) ? name.slice(colon + 1) : name;
  return rest.split(/[\s_-]+/).filter((w) => w !== '');
}

/** The typo budget of a term of this length. */
export function maxTypos(length: number): number {
  return length < 3 ? 0 : length < 5 ? 1 : 2;
}

export class TagIndex {
  /** Names (tags and aliases), sorted. */
  private readonly names: string[];
  /** For each name: its tag (the target for an alias), and whether it is an alias. */
  private readonly nameTag: Int32Array;
  private readonly nameIsAlias: Uint8Array;
  private readonly nameCounts: Int32Array;
  private readonly nameMax: RangeMax;
  /** Words of multi-word names, sorted, with the name each belongs to. */
  private readonly words: string[];
  private readonly wordName: Int32Array;
  private readonly wordCounts: Int32Array;
  private readonly wordMax: RangeMax;
  /** Tags by position, and positions by id. */
  private readonly tags: IndexedTag[];
  private readonly byId = new Map<number, number>();
  /** Names (positions) of each tag's own name and its aliases, for count updates. */
  private readonly namesOfTag: number[][];

  static build(tags: readonly IndexedTag[]): TagIndex {
    return new TagIndex(tags);
  }

  private constructor(input: readonly IndexedTag[]) {
    this.tags = input.map((t) => ({ ...t }));
    this.tags.forEach((t, i) => this.byId.set(t.id, i));
    // Plain string sorts (code-unit order, as `compare`) are several times faster than sorts
    // with a comparator; names are unique, so a name finds its tag through a map.
    const tagOfName = new Map<string, { tag: number; alias: boolean }>();
    this.tags.forEach((t, i) => {
      const target = t.aliasOf === null ? undefined : this.byId.get(t.aliasOf);
      tagOfName.set(t.name, { tag: target ?? i, alias: target !== undefined });
    });
    this.names = [...tagOfName.keys()].sort();
    const n = this.names.length;
    this.nameTag = new Int32Array(n);
    this.nameIsAlias = new Uint8Array(n);
    this.nameCounts = new Int32Array(n);
    this.namesOfTag = this.tags.map(() => []);
    for (let i = 0; i < n; i++) {
      const { tag, alias } = tagOfName.get(this.names[i]!)!;
      this.nameTag[i] = tag;
      this.nameIsAlias[i] = alias ? 1 : 0;
      this.nameCounts[i] = this.tags[tag]!.images;
      this.namesOfTag[tag]!.push(i);
    }
    this.nameMax = new RangeMax(this.nameCounts);

    // Words as `word NUL position`: sorted as strings, the words come out in order.
    const keys: string[] = [];
    for (let i = 0; i < n; i++) {
      const list = wordsOf(this.names[i]!);
      if (list.length > 1 || list[0] !== this.names[i]) for (const word of new Set(list)) keys.push(`${word}\u0000${i}`);
    }
    keys.sort();
    this.words = new Array<string>(keys.length);
    this.wordName = new Int32Array(keys.length);
    this.wordCounts = new Int32Array(keys.length);
    keys.forEach((key, w) => {
      const cut = key.lastIndexOf('\u0000');
      const name = Number(key.slice(cut + 1));
      this.words[w] = key.slice(0, cut);
      this.wordName[w] = name;
      this.wordCounts[w] = this.nameCounts[name]!;
    });
    this.wordMax = new RangeMax(this.wordCounts);
  }

  /** The words of the name at `name`, kept once asked for. */
  private readonly nameWords = new Map<number, string[]>();

  private wordsOfName(name: number): string[] {
    let words = this.nameWords.get(name);
    if (words === undefined) this.nameWords.set(name, (words = wordsOf(this.names[name]!)));
    return words;
  }

  get size(): number {
    return this.tags.length;
  }

  tag(id: number): IndexedTag | undefined {
    const at = this.byId.get(id);
    return at === undefined ? undefined : this.tags[at];
  }

  /** A tag's image count changed: its name and its aliases move in the ranking. */
  setCount(id: number, images: number): void {
    const at = this.byId.get(id);
    if (at === undefined) return;
    this.tags[at]!.images = images;
    for (const name of this.namesOfTag[at]!) {
      this.nameMax.set(name, images);
      // The name's words carry the same count.
      const w = wordsOf(this.names[name]!);
      if (w.length > 1 || w[0] !== this.names[name]) {
        for (const word of new Set(w)) {
          for (let i = lowerBound(this.words, word); i < this.words.length && this.words[i] === word; i++) {
            if (this.wordName[i] === name) this.wordMax.set(i, images);
          }
        }
      }
    }
  }

  /** Whether `name` (lowercased) is a tag's or an alias's name. */
  has(name: string): boolean {
    return this.names[lowerBound(this.names, name)] === name;
  }

  /** Up to `limit` suggestions for `term` (already lowercased and trimmed), best first. */
  suggest(term: string, limit: number): TagSuggestion[] {
    const out: TagSuggestion[] = [];
    const seen = new Set<number>();
    const take = (name: number, match: MatchKind, distance: number): boolean => {
      const tag = this.nameTag[name]!;
      if (seen.has(tag)) return out.length < limit;
      seen.add(tag);
      out.push({ name: this.names[name]!, tag: this.tags[tag]!, alias: this.nameIsAlias[name] === 1, match, distance });
      return out.length < limit;
    };
    if (term === '' || limit <= 0) return out;

    // 1. prefix
    const [lo, hi] = prefixRange(this.names, term);
    for (const name of this.nameMax.top([[lo, hi]])) if (!take(name, 'prefix', 0)) return out;

    // 2. words, in any order
    const { namespace, rest } = splitNamespace(term);
    const typed = rest.split(/[\s_-]+/).filter((w) => w !== '');
    if (typed.length > 0) {
      const last = typed[typed.length - 1]!;
      const others = typed.slice(0, -1);
      const [wlo, whi] = prefixRange(this.words, last);
      let looked = 0;
      for (const w of this.wordMax.top([[wlo, whi]])) {
        if (++looked > WORD_CANDIDATES) break;
        const name = this.wordName[w]!;
        const full = this.names[name]!;
        if (namespace !== null && !full.startsWith(namespace)) continue;
        const words = this.wordsOfName(name);
        if (others.every((o) => words.some((x) => x === o || x.startsWith(o))) && !take(name, 'words', 0)) return out;
      }
    }

    // 3. typos in the start of the name
    const budget = rest.length > MAX_TYPO_TERM ? 0 : maxTypos(rest.length);
    if (budget > 0) {
      const fixed = (namespace ?? '') + rest.slice(0, TYPO_PREFIX);
      const [nlo, nhi] = prefixRange(this.names, fixed);
      const found = this.typoRanges(rest.slice(TYPO_PREFIX), fixed.length, nlo, nhi, budget);
      for (let d = 1; d <= budget; d++) {
        for (const name of this.nameMax.top(disjoint(found[d]!))) if (!take(name, 'typo', d)) return out;
      }
      // 4. a typo in the first character (one edit in all)
      const base = namespace ?? '';
      const [blo, bhi] = prefixRange(this.names, base);
      const anyFirst = this.typoRanges(rest, base.length, blo, bhi, 1);
      for (const name of this.nameMax.top(disjoint(anyFirst[1]!))) if (!take(name, 'typo', 1)) return out;
    }
    return out;
  }

  /**
   * Ranges of names whose characters from `depth` on start within `budget` edits of `term`, by
   * distance (the smallest distance of a prefix of the name wins where ranges nest).
   */
  private typoRanges(term: string, depth: number, lo: number, hi: number, budget: number): [number, number][][] {
    const m = term.length;
    const found: [number, number][][] = Array.from({ length: budget + 1 }, () => []);
    // rows[k]: distances between term prefixes and the name's k characters after `depth`.
    const maxLen = m + budget + 1;
    const rows = Array.from({ length: maxLen + 1 }, () => new Int32Array(m + 1));
    for (let i = 0; i <= m; i++) rows[0]![i] = i;
    const chars = new Int32Array(maxLen + 1);
    const names = this.names;

    // `closest`: the smallest distance of a matching prefix above; a name keeps its smallest.
    const walk = (k: number, lo: number, hi: number, closest: number) => {
      // children of the node (depth + k, lo, hi): runs of the next character
      const at = depth + k;
      let pos = lo;
      while (pos < hi && names[pos]!.length <= at) pos++;
      while (pos < hi) {
        const c = names[pos]!.charCodeAt(at);
        const end = runEnd(names, at, c, pos, hi);
        const row = rows[k + 1]!;
        const prev = rows[k]!;
        chars[k + 1] = c;
        row[0] = k + 1;
        let min = row[0];
        for (let i = 1; i <= m; i++) {
          const cost = term.charCodeAt(i - 1) === c ? 0 : 1;
          let v = Math.min(prev[i]! + 1, row[i - 1]! + 1, prev[i - 1]! + cost);
          if (k >= 1 && i >= 2 && term.charCodeAt(i - 1) === chars[k] && term.charCodeAt(i - 2) === c) v = Math.min(v, rows[k - 1]![i - 2]! + 1);
          row[i] = v;
          if (v < min) min = v;
        }
        const d = row[m]!;
        if (d < closest) found[d]!.push([pos, end]);
        if (min <= budget && k + 1 < maxLen) walk(k + 1, pos, end, Math.min(d, closest));
        pos = end;
      }
    };
    walk(0, lo, hi, budget + 1);
    // A range nested in a closer one is listed again under its larger distance; the caller
    // takes the closer distances first and skips tags it already has.
    return found;
  }
}

/** First position of `names` not below `key`. */
function lowerBound(names: readonly string[], key: string): number {
  let lo = 0;
  let hi = names.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (names[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The range of sorted `names` starting with `prefix`. */
function prefixRange(names: readonly string[], prefix: string): [number, number] {
  const lo = lowerBound(names, prefix);
  // The smallest string above every string starting with `prefix`.
  const hi = lowerBound(names, prefix + '\uffff');
  return [lo, hi];
}

/** End of the run of names in `[pos, hi)` whose character at `at` is `c` (galloping search). */
function runEnd(names: readonly string[], at: number, c: number, pos: number, hi: number): number {
  let step = 1;
  while (pos + step < hi && names[pos + step]!.charCodeAt(at) === c) step *= 2;
  // names[pos + step / 2] has `c` (or is pos itself); the run ends at or before pos + step.
  let left = pos + (step >> 1) + 1;
  let right = Math.min(pos + step, hi);
  while (left < right) {
    const mid = (left + right) >>> 1;
    if (names[mid]!.charCodeAt(at) === c) left = mid + 1;
    else right = mid;
  }
  return left;
}

/** Disjoint ranges covering the same positions. */
function disjoint(ranges: readonly [number, number][]): [number, number][] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** `artist:jhon` → namespace `artist:`, rest `jhon`; no known namespace → null. */
export function splitNamespace(term: string): { namespace: string | null; rest: string } {
  const colon = term.indexOf(':');
  if (colon > 0 && TAG_NAMESPACES.includes(term.slice(0, colon))) return { namespace: term.slice(0, colon + 1), rest: term.slice(colon + 1) };
  return { namespace: null, rest: term };
}
