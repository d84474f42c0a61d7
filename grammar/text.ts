/**
 * Text analysis compatible with OpenSearch's built-in `snowball` analyzer, which every text field
 * of our indices uses (`description`, `body`, `deletion_reason`, ...):
 *
 *   standard tokenizer (Unicode UAX #29 word boundaries, max token length 255)
 *   → English possessive filter (`pony's` → `pony`)
 *   → lowercase
 *   → stop filter (Lucene's English stop set, 33 words)
 *   → snowball filter, language English (the Porter2 stemmer)
 *
 * Both the embedded engine (indexing and querying text fields) and the DSL evaluator
 * (`match`/`match_phrase`) use this module, so they agree with each other and, closely, with
 * OpenSearch. Pure code, no I/O.
 *
 * The tokenizer implements the UAX #29 rules that matter for real text (letters and digits join,
 * `'`, `.`, `:` join letters, `.` and `,` join digits, `_` joins everything, Han and Hiragana
 * characters are single tokens, emoji are tokens) rather than the full rule set.
 */

/** Lucene's `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`, the default stop set of `snowball`. */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it',
  'no', 'not', 'of', 'on', 'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they',
  'this', 'to', 'was', 'will', 'with',
]);

/** Lucene's `StandardAnalyzer.DEFAULT_MAX_TOKEN_LENGTH`: longer tokens are split at this length. */
export const MAX_TOKEN_LENGTH = 255;

/** Terms with their positions. Removed stop words leave gaps, as in Lucene. */
export interface AnalyzedText {
  terms: string[];
  positions: number[];
}

// ---------------------------------------------------------------------------------------------
// Character classes (UAX #29 word-break properties, reduced to what the tokenizer needs)
// ---------------------------------------------------------------------------------------------

const enum C {
  Other = 0,
  Letter = 1,
  Numeric = 2,
  ExtendNumLet = 3,
  MidLetter = 4,
  MidNumLet = 5,
  MidNum = 6,
  Extend = 7, // Extend, Format, ZWJ: attach to the previous character
  Ideographic = 8, // Han, Hiragana: one token per character
  Katakana = 9,
  SouthEastAsian = 10, // Thai, Lao, Khmer, Myanmar: one token per run
  Pictographic = 11, // emoji
  RegionalIndicator = 12,
  Unknown = 255,
}

const MID_LETTER = new Set([0x3a, 0xb7, 0x387, 0x5f4, 0x2027, 0xfe13, 0xfe55, 0xff1a]);
const MID_NUM_LET = new Set([0x2e, 0x27, 0x2018, 0x2019, 0x2024, 0xfe52, 0xff07, 0xff0e]);
const MID_NUM = new Set([
  0x2c, 0x3b, 0x37e, 0x589, 0x60c, 0x60d, 0x66c, 0x7f8, 0x2044, 0xfe10, 0xfe14, 0xfe50, 0xfe54,
  0xff0c, 0xff1b,
]);

const RE_EXTEND = /^[\p{M}\p{Cf}\u200d\p{Emoji_Modifier}]$/u;
const RE_HAN = /^[\p{Script=Han}\p{Script=Hiragana}]$/u;
const RE_KATAKANA = /^[\p{Script=Katakana}\u30fc\uff70]$/u;
const RE_SEA = /^[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]$/u;
const RE_LETTER = /^[\p{L}\p{Nl}]$/u;
const RE_DIGIT = /^\p{Nd}$/u;
const RE_CONNECTOR = /^\p{Pc}$/u;
const RE_PICTO = /^\p{Extended_Pictographic}$/u;

function classifySlow(cp: number): C {
  if (MID_LETTER.has(cp)) return C.MidLetter;
  if (MID_NUM_LET.has(cp)) return C.MidNumLet;
  if (MID_NUM.has(cp)) return C.MidNum;
  if (cp >= 0x1f1e6 && cp <= 0x1f1ff) return C.RegionalIndicator;
  const ch = String.fromCodePoint(cp);
  if (RE_EXTEND.test(ch)) return C.Extend;
  if (RE_HAN.test(ch)) return C.Ideographic;
  if (RE_KATAKANA.test(ch)) return C.Katakana;
  if (RE_SEA.test(ch)) return C.SouthEastAsian;
  if (RE_LETTER.test(ch)) return C.Letter;
  if (RE_DIGIT.test(ch)) return C.Numeric;
  if (RE_CONNECTOR.test(ch)) return C.ExtendNumLet;
  if (RE_PICTO.test(ch)) return C.Pictographic;
  return C.Other;
}

/** Classes of the BMP, filled lazily; astral code points go through a Map. */
const bmpClass = new Uint8Array(0x10000).fill(C.Unknown);
const astralClass = new Map<number, C>();

function classify(cp: number): C {
  if (cp < 0x10000) {
    let c = bmpClass[cp] as C;
    if (c === C.Unknown) {
      c = classifySlow(cp);
      bmpClass[cp] = c;
    }
    return c;
  }
  let c = astralClass.get(cp);
  if (c === undefined) {
    c = classifySlow(cp);
    astralClass.set(cp, c);
  }
  return c;
}

/** Whether `next` continues a word whose last base character has class `prev` (WB5–WB13b). */
function joins(prev: C, next: C): boolean {
  switch (prev) {
    case C.Letter:
    case C.Numeric:
      return next === C.Letter || next === C.Numeric || next === C.ExtendNumLet;
    case C.ExtendNumLet:
      return next === C.Letter || next === C.Numeric || next === C.ExtendNumLet || next === C.Katakana;
    case C.Katakana:
      return next === C.Katakana || next === C.ExtendNumLet;
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Tokenizer
// ---------------------------------------------------------------------------------------------

function cpAt(s: string, i: number): number {
  return s.codePointAt(i) as number;
}

function width(cp: number): number {
  return cp > 0xffff ? 2 : 1;
}

/** Index after any Extend/Format/ZWJ characters starting at `i`. */
function skipExtend(s: string, i: number): number {
  while (i < s.length) {
    const cp = cpAt(s, i);
    if (classify(cp) !== C.Extend) break;
    i += width(cp);
  }
  return i;
}

function pushToken(out: string[], token: string): void {
  if (token.length <= MAX_TOKEN_LENGTH) {
    out.push(token);
    return;
  }
  for (let i = 0; i < token.length; i += MAX_TOKEN_LENGTH) {
    let end = Math.min(i + MAX_TOKEN_LENGTH, token.length);
    // never split a surrogate pair
    const last = token.charCodeAt(end - 1);
    if (end < token.length && last >= 0xd800 && last <= 0xdbff) end--;
    out.push(token.slice(i, end));
    i = end - MAX_TOKEN_LENGTH;
  }
}

/**
 * The standard tokenizer: the words of `text`, original case, in order. Punctuation, symbols and
 * spaces separate words and are dropped.
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const cp = cpAt(text, i);
    const cls = classify(cp);
    const start = i;
    i += width(cp);
    switch (cls) {
      case C.Letter:
      case C.Numeric:
      case C.ExtendNumLet:
      case C.Katakana: {
        let prev: C = cls;
        i = skipExtend(text, i);
        while (i < n) {
          const ncp = cpAt(text, i);
          const ncls = classify(ncp);
          if (joins(prev, ncls)) {
            prev = ncls;
            i = skipExtend(text, i + width(ncp));
            continue;
          }
          const isMidL = ncls === C.MidLetter || ncls === C.MidNumLet;
          const isMidN = ncls === C.MidNum || ncls === C.MidNumLet;
          if ((prev === C.Letter && isMidL) || (prev === C.Numeric && isMidN)) {
            const after = skipExtend(text, i + width(ncp));
            if (after < n) {
              const acls = classify(cpAt(text, after));
              if (acls === prev) {
                i = after;
                continue;
              }
            }
          }
          break;
        }
        pushToken(out, text.slice(start, i));
        break;
      }
      case C.Ideographic:
        i = skipExtend(text, i);
        out.push(text.slice(start, i));
        break;
      case C.SouthEastAsian:
        while (i < n) {
          const ncp = cpAt(text, i);
          const ncls = classify(ncp);
          if (ncls !== C.SouthEastAsian && ncls !== C.Extend) break;
          i += width(ncp);
        }
        pushToken(out, text.slice(start, i));
        break;
      case C.Pictographic:
        // an emoji, its modifiers and variation selectors, and ZWJ-joined followers (WB3c)
        for (;;) {
          i = skipExtendEmoji(text, i);
          if (i < n && text.charCodeAt(i - 1) === 0x200d && classify(cpAt(text, i)) === C.Pictographic) {
            i += width(cpAt(text, i));
            continue;
          }
          break;
        }
        out.push(text.slice(start, i));
        break;
      case C.RegionalIndicator:
        // a flag is a pair of regional indicators (WB15/16)
        if (i < n && classify(cpAt(text, i)) === C.RegionalIndicator) i += 2;
        i = skipExtend(text, i);
        out.push(text.slice(start, i));
        break;
      default:
        break;
    }
  }
  return out;
}

/** Like skipExtend, but stops right after a ZWJ so the caller can look at what it joins. */
function skipExtendEmoji(s: string, i: number): number {
  while (i < s.length) {
    const cp = cpAt(s, i);
    if (classify(cp) !== C.Extend) break;
    i += width(cp);
    if (cp === 0x200d) break;
  }
  return i;
}

// ---------------------------------------------------------------------------------------------
// Token filters
// ---------------------------------------------------------------------------------------------

/** Lucene's `EnglishPossessiveFilter`: drops a trailing `'s` (also `’s`, `＇s`). */
function stripPossessive(token: string): string {
  const n = token.length;
  if (n < 2) return token;
  const last = token.charCodeAt(n - 1);
  if (last !== 0x73 && last !== 0x53) return token;
  const q = token.charCodeAt(n - 2);
  return q === 0x27 || q === 0x2019 || q === 0xff07 ? token.slice(0, n - 2) : token;
}

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Lowercasing one code point at a time, as Java's `Character.toLowerCase` does (no final-sigma
 * context, `İ` → `i`).
 */
export function lowercase(token: string): string {
  if (!NON_ASCII.test(token)) return token.toLowerCase();
  let out = '';
  for (const ch of token) {
    const cp = ch.codePointAt(0) as number;
    if (cp === 0x130) {
      out += 'i';
      continue;
    }
    const lower = ch.toLowerCase();
    out += [...lower].length === 1 ? lower : ch;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The English (Porter2) snowball stemmer
// ---------------------------------------------------------------------------------------------

const EXCEPTION1 = new Map<string, string>([
  ['skis', 'ski'], ['skies', 'sky'], ['dying', 'die'], ['lying', 'lie'], ['tying', 'tie'],
  ['idly', 'idl'], ['gently', 'gentl'], ['ugly', 'ugli'], ['early', 'earli'], ['only', 'onli'],
  ['singly', 'singl'],
  ['sky', 'sky'], ['news', 'news'], ['howe', 'howe'], ['atlas', 'atlas'], ['cosmos', 'cosmos'],
  ['bias', 'bias'], ['andes', 'andes'],
]);

const EXCEPTION2 = new Set([
  'inning', 'outing', 'canning', 'herring', 'earring', 'proceed', 'exceed', 'succeed',
]);

const REGION_PREFIXES = ['gener', 'commun', 'arsen'];

const STEP2: ReadonlyArray<readonly [string, string]> = [
  // longest suffixes first, so the first hit is the longest match
  ['ization', 'ize'], ['ational', 'ate'], ['fulness', 'ful'], ['ousness', 'ous'],
  ['iveness', 'ive'], ['tional', 'tion'], ['biliti', 'ble'], ['lessli', 'less'],
  ['entli', 'ent'], ['ation', 'ate'], ['alism', 'al'], ['aliti', 'al'], ['ousli', 'ous'],
  ['iviti', 'ive'], ['fulli', 'ful'], ['enci', 'ence'], ['anci', 'ance'], ['abli', 'able'],
  ['izer', 'ize'], ['ator', 'ate'], ['alli', 'al'], ['bli', 'ble'], ['ogi', 'og'], ['li', ''],
];

const STEP3: ReadonlyArray<readonly [string, string]> = [
  ['ational', 'ate'], ['tional', 'tion'], ['alize', 'al'], ['icate', 'ic'], ['iciti', 'ic'],
  ['ative', ''], ['ical', 'ic'], ['ness', ''], ['ful', ''],
];

const STEP4 = [
  'ement', 'ance', 'ence', 'able', 'ible', 'ment', 'ant', 'ent', 'ism', 'ate', 'iti', 'ous',
  'ive', 'ize', 'ion', 'al', 'er', 'ic',
];

const VALID_LI = new Set(['c', 'd', 'e', 'g', 'h', 'k', 'm', 'n', 'r', 't']);
const DOUBLES = new Set(['bb', 'dd', 'ff', 'gg', 'mm', 'nn', 'pp', 'rr', 'tt']);

function isVowel(ch: string | undefined): boolean {
  return ch === 'a' || ch === 'e' || ch === 'i' || ch === 'o' || ch === 'u' || ch === 'y';
}

/** Short syllable ending at `end` (exclusive), as the snowball `shortv` routine. */
function shortSyllableAt(w: string, end: number): boolean {
  const c1 = w[end - 1];
  const c2 = w[end - 2];
  if (end >= 3) {
    const c3 = w[end - 3];
    if (!isVowel(c1) && c1 !== 'w' && c1 !== 'x' && c1 !== 'Y' && isVowel(c2) && !isVowel(c3)) {
      return true;
    }
  }
  return end === 2 && !isVowel(c1) && isVowel(c2);
}

/** Start of the region after the first non-vowel that follows a vowel, searching from `from`. */
function regionAfter(w: string, from: number): number {
  let i = from;
  while (i < w.length && !isVowel(w[i])) i++;
  while (i < w.length && isVowel(w[i])) i++;
  return i < w.length ? i + 1 : w.length;
}

/**
 * The snowball English (Porter2) stemmer, for one lowercased word, as Lucene's `SnowballFilter`
 * with language `English` applies it.
 */
export function stem(word: string): string {
  const exception = EXCEPTION1.get(word);
  if (exception !== undefined) return exception;
  if (word.length < 3) return word;

  // prelude
  let w = word.charCodeAt(0) === 0x27 ? word.slice(1) : word;
  let yFound = false;
  if (w.includes('y')) {
    let chars = '';
    for (let i = 0; i < w.length; i++) {
      const ch = w[i] as string;
      if (ch === 'y' && (i === 0 || isVowel(chars[i - 1]))) {
        chars += 'Y';
        yFound = true;
      } else {
        chars += ch;
      }
    }
    w = chars;
  }

  // regions
  let p1 = -1;
  for (const prefix of REGION_PREFIXES) {
    if (w.startsWith(prefix)) {
      p1 = prefix.length;
      break;
    }
  }
  if (p1 < 0) p1 = regionAfter(w, 0);
  const p2 = regionAfter(w, p1);

  // step 0: apostrophe suffixes
  if (w.endsWith("'s'")) w = w.slice(0, -3);
  else if (w.endsWith("'s")) w = w.slice(0, -2);
  else if (w.endsWith("'")) w = w.slice(0, -1);

  // step 1a
  if (w.endsWith('sses')) {
    w = w.slice(0, -2);
  } else if (w.endsWith('ied') || w.endsWith('ies')) {
    w = w.length > 4 ? w.slice(0, -2) : w.slice(0, -1);
  } else if (w.endsWith('us') || w.endsWith('ss')) {
    // unchanged
  } else if (w.endsWith('s')) {
    // delete if the part before the letter preceding the s contains a vowel
    let hasVowel = false;
    for (let i = 0; i < w.length - 2; i++) {
      if (isVowel(w[i])) {
        hasVowel = true;
        break;
      }
    }
    if (hasVowel) w = w.slice(0, -1);
  }

  if (!EXCEPTION2.has(w)) {
    w = step1b(w, p1);
    w = step1c(w);
    w = step2(w, p1);
    w = step3(w, p1, p2);
    w = step4(w, p2);
    w = step5(w, p1, p2);
  }

  return yFound ? w.replace(/Y/g, 'y') : w;
}

function step1b(w: string, p1: number): string {
  let suffix = '';
  for (const s of ['eedly', 'ingly', 'edly', 'eed', 'ing', 'ed']) {
    if (w.endsWith(s)) {
      suffix = s;
      break;
    }
  }
  if (suffix === '') return w;
  const stemEnd = w.length - suffix.length;
  if (suffix === 'eed' || suffix === 'eedly') {
    return stemEnd >= p1 ? w.slice(0, stemEnd) + 'ee' : w;
  }
  let hasVowel = false;
  for (let i = 0; i < stemEnd; i++) {
    if (isVowel(w[i])) {
      hasVowel = true;
      break;
    }
  }
  if (!hasVowel) return w;
  w = w.slice(0, stemEnd);
  if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) return w + 'e';
  if (DOUBLES.has(w.slice(-2))) return w.slice(0, -1);
  if (w.length === p1 && shortSyllableAt(w, w.length)) return w + 'e';
  return w;
}

function step1c(w: string): string {
  const last = w[w.length - 1];
  if ((last === 'y' || last === 'Y') && w.length > 2 && !isVowel(w[w.length - 2])) {
    return w.slice(0, -1) + 'i';
  }
  return w;
}

function step2(w: string, p1: number): string {
  for (const [suffix, replacement] of STEP2) {
    if (!w.endsWith(suffix)) continue;
    const start = w.length - suffix.length;
    if (start < p1) return w;
    if (suffix === 'ogi') return w[start - 1] === 'l' ? w.slice(0, start) + replacement : w;
    if (suffix === 'li') return VALID_LI.has(w[start - 1] ?? '') ? w.slice(0, start) : w;
    return w.slice(0, start) + replacement;
  }
  return w;
}

function step3(w: string, p1: number, p2: number): string {
  for (const [suffix, replacement] of STEP3) {
    if (!w.endsWith(suffix)) continue;
    const start = w.length - suffix.length;
    if (start < p1) return w;
    if (suffix === 'ative' && start < p2) return w;
    return w.slice(0, start) + replacement;
  }
  return w;
}

function step4(w: string, p2: number): string {
  for (const suffix of STEP4) {
    if (!w.endsWith(suffix)) continue;
    const start = w.length - suffix.length;
    if (start < p2) return w;
    if (suffix === 'ion') {
      const before = w[start - 1];
      return before === 's' || before === 't' ? w.slice(0, start) : w;
    }
    return w.slice(0, start);
  }
  return w;
}

function step5(w: string, p1: number, p2: number): string {
  const last = w[w.length - 1];
  const start = w.length - 1;
  if (last === 'e') {
    if (start >= p2 || (start >= p1 && !shortSyllableAt(w, start))) return w.slice(0, start);
  } else if (last === 'l') {
    if (start >= p2 && w[start - 1] === 'l') return w.slice(0, start);
  }
  return w;
}

// ---------------------------------------------------------------------------------------------
// Analyzers
// ---------------------------------------------------------------------------------------------

const stemCache = new Map<string, string>();
const STEM_CACHE_LIMIT = 50_000;

function cachedStem(term: string): string {
  let s = stemCache.get(term);
  if (s === undefined) {
    s = stem(term);
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
    stemCache.set(term, s);
  }
  return s;
}

/**
 * The `snowball` analyzer with positions: removed stop words leave position gaps, as in Lucene,
 * so a phrase query can tell `quick fox` from `quick the fox`. Use this for phrase matching.
 */
export function analyzeWithPositions(text: string): AnalyzedText {
  const terms: string[] = [];
  const positions: number[] = [];
  const tokens = tokenize(text);
  for (let i = 0; i < tokens.length; i++) {
    const term = lowercase(stripPossessive(tokens[i] as string));
    if (STOP_WORDS.has(term)) continue;
    terms.push(cachedStem(term));
    positions.push(i);
  }
  return { terms, positions };
}

/**
 * The `snowball` analyzer: the terms of `text` in order (positions = array index; stop words are
 * dropped without leaving gaps — see `analyzeWithPositions` for Lucene's exact positions).
 */
export function analyze(text: string): string[] {
  return analyzeWithPositions(text).terms;
}

/** The `standard` analyzer: standard tokenizer and lowercase, no stop words, no stemming. */
export function analyzeStandard(text: string): AnalyzedText {
  const terms = tokenize(text).map(lowercase);
  return { terms, positions: terms.map((_, i) => i) };
}

/**
 * The analyzer a mapping names. `standard` is the standard analyzer; `snowball`, `english` and an
 * absent name are the snowball analyzer (every text field of our indices names `snowball`, as in
 * Philomena's mappings).
 */
export function analyzerFor(name: string | undefined): (text: string) => AnalyzedText {
  switch (name) {
    case 'standard':
      return analyzeStandard;
    case undefined:
    case 'snowball':
    case 'english':
    case 'default':
      return analyzeWithPositions;
    default:
      throw new Error(`Unsupported analyzer: ${name}`);
  }
}
