/**
 * Evaluates OpenSearch query DSL against one document, in process, with OpenSearch's semantics.
 *
 * Used for per-image decisions (the API's `spoilered` flag, forced filters, filter previews) and
 * as the test oracle of both search engines. It deliberately does not reproduce the reference
 * evaluator's defects: a `bool` without `should` matches when its other clauses do, multi-valued
 * fields match on any element, dates compare as instants, text queries go through the field's
 * analyzer, `?` is exactly one character, and `nested` works.
 *
 * `compileEvaluator` turns a query into a closure tree once (values pre-parsed, patterns
 * pre-compiled, dates pre-resolved); `evaluate` caches compiled queries by query object.
 */
import type { Query } from './dsl.js';
import type { FieldMapping, IndexMapping } from './mapping.js';
import { analyzerFor, type AnalyzedText } from './text.js';
import { compileDateBound, parseTimeZone, toEpochMillis } from './dates.js';
import { compareStrings, compileWildcard, fuzzyMaxEdits, withinEditDistance } from './patterns.js';

export type Doc = Record<string, unknown>;
export type DocPredicate = (doc: Doc) => boolean;

export interface EvaluateOptions {
  /** Clock for date math (`now-3d/d`), in epoch milliseconds. Defaults to `Date.now`. */
  now?: () => number;
}

// =============================================================================================
// Public API
// =============================================================================================

interface CacheEntry {
  mapping: IndexMapping | undefined;
  now: (() => number) | undefined;
  fn: DocPredicate;
}
const compiledCache = new WeakMap<object, CacheEntry[]>();

/**
 * Whether `doc` matches `query`. `mapping`, when given, types the fields (as OpenSearch would
 * read them); without it each value's JavaScript type decides. Compiled queries are cached by
 * query object, so evaluating one query against many documents compiles it once.
 */
export function evaluate(query: Query, doc: Doc, mapping?: IndexMapping, options?: EvaluateOptions): boolean {
  if (typeof query !== 'object' || query === null) return compileEvaluator(query, mapping, options)(doc);
  const now = options?.now;
  let entries = compiledCache.get(query);
  if (entries === undefined) {
    entries = [];
    compiledCache.set(query, entries);
  }
  for (const e of entries) {
    if (e.mapping === mapping && e.now === now) return e.fn(doc);
  }
  const fn = compileEvaluator(query, mapping, options);
  if (entries.length >= 8) entries.shift();
  entries.push({ mapping, now, fn });
  return fn(doc);
}

/**
 * Compiles `query` into a predicate over documents. Throws (naming the problem) on unknown query
 * kinds and on queries OpenSearch would reject (bad numbers, dates, IPs, booleans, fuzziness).
 */
export function compileEvaluator(query: Query, mapping?: IndexMapping, options?: EvaluateOptions): DocPredicate {
  const ctx: Ctx = {
    mapping,
    scope: null,
    now: options?.now ?? Date.now,
  };
  return compileQuery(query as unknown, ctx);
}

// =============================================================================================
// Compilation context and field resolution
// =============================================================================================

interface Ctx {
  mapping: IndexMapping | undefined;
  /** Full path of the innermost enclosing `nested` query, or null at the top level. */
  scope: string | null;
  now: () => number;
}

type Kind =
  | 'keyword'
  | 'text'
  | 'integer'
  | 'float'
  | 'double'
  | 'date'
  | 'boolean'
  | 'ip'
  | 'object'
  | 'nested'
  | 'infer'
  | 'none';

const INTEGER_TYPES = new Set(['integer', 'long', 'short', 'byte', 'unsigned_long']);
const FLOAT_TYPES = new Set(['float', 'half_float']);
const DOUBLE_TYPES = new Set(['double', 'scaled_float']);

interface Field {
  name: string;
  kind: Kind;
  /** Path inside the current scope's object (parent path for a text sub-field). */
  segs: string[];
  analyzer: (text: string) => AnalyzedText;
}

function kindOfType(type: string): Kind {
  if (type === 'keyword' || type === 'constant_keyword' || type === 'wildcard') return 'keyword';
  if (type === 'text' || type === 'match_only_text') return 'text';
  if (INTEGER_TYPES.has(type)) return 'integer';
  if (FLOAT_TYPES.has(type)) return 'float';
  if (DOUBLE_TYPES.has(type)) return 'double';
  if (type === 'date' || type === 'date_nanos') return 'date';
  if (type === 'boolean') return 'boolean';
  if (type === 'ip') return 'ip';
  if (type === 'object') return 'object';
  if (type === 'nested') return 'nested';
  throw new Error(`Unsupported field type in mapping: ${type}`);
}

function analyzerOf(fm: FieldMapping | undefined): (text: string) => AnalyzedText {
  return analyzerFor(fm && fm.type === 'text' ? fm.analyzer : undefined);
}

/**
 * Resolves a field name (always the full dotted path, also inside `nested`) against the mapping
 * and the current scope. Fields OpenSearch would not find resolve to kind `none` (never match):
 * names outside the enclosing nested path, names the mapping lacks, and paths through a nested
 * field from outside a `nested` query.
 */
function resolveField(ctx: Ctx, name: string): Field {
  const none: Field = { name, kind: 'none', segs: [], analyzer: analyzerOf(undefined) };
  let rel = name;
  if (ctx.scope !== null) {
    if (!name.startsWith(ctx.scope + '.')) return none;
    rel = name.slice(ctx.scope.length + 1);
  }
  const relSegs = rel.split('.');
  if (ctx.mapping === undefined) {
    return { name, kind: 'infer', segs: relSegs, analyzer: analyzerOf(undefined) };
  }
  const parts = name.split('.');
  let props: Record<string, FieldMapping> | undefined = ctx.mapping.properties;
  for (let i = 0; i < parts.length; i++) {
    const fm: FieldMapping | undefined = props?.[parts[i] as string];
    if (fm === undefined) return none;
    const last = i === parts.length - 1;
    const kind = kindOfType(fm.type);
    if (kind === 'object' || kind === 'nested') {
      const pathHere = parts.slice(0, i + 1).join('.');
      if (kind === 'nested' && !last) {
        // inside a nested field: only reachable from a nested query at (or below) this path
        if (ctx.scope === null || !(ctx.scope === pathHere || ctx.scope.startsWith(pathHere + '.'))) return none;
      }
      if (last) {
        if (kind === 'nested' && !(ctx.scope !== null && ctx.scope.startsWith(pathHere + '.'))) return none;
        return { name, kind, segs: relSegs, analyzer: analyzerOf(undefined) };
      }
      props = (fm as { properties: Record<string, FieldMapping> }).properties;
      continue;
    }
    if (last) return { name, kind, segs: relSegs, analyzer: analyzerOf(fm) };
    // a multi-field such as `analyzed_name.nlp`: read the parent's value, analyze as the sub-field
    if (fm.type === 'text' && fm.fields !== undefined && i === parts.length - 2) {
      const sub = fm.fields[parts[i + 1] as string];
      if (sub === undefined) return none;
      const subKind = kindOfType(sub.type);
      return { name, kind: subKind, segs: relSegs.slice(0, -1), analyzer: analyzerOf(sub) };
    }
    return none;
  }
  return none;
}

/** Path of the nested objects of `nested.path` relative to the current scope. */
function resolveNestedPath(ctx: Ctx, path: string, ignoreUnmapped: boolean): string[] | null {
  if (ctx.scope !== null && !path.startsWith(ctx.scope + '.')) {
    if (ignoreUnmapped) return null;
    throw new Error(`[nested] nested path [${path}] is not inside the enclosing nested path [${ctx.scope}]`);
  }
  const rel = ctx.scope !== null ? path.slice(ctx.scope.length + 1) : path;
  if (ctx.mapping !== undefined) {
    let props: Record<string, FieldMapping> | undefined = ctx.mapping.properties;
    let fm: FieldMapping | undefined;
    for (const part of path.split('.')) {
      fm = props?.[part];
      props = fm && (fm.type === 'object' || fm.type === 'nested') ? fm.properties : undefined;
    }
    if (fm === undefined) {
      if (ignoreUnmapped) return null;
      throw new Error(`[nested] failed to find nested object under path [${path}]`);
    }
    if (fm.type !== 'nested') throw new Error(`[nested] nested object under path [${path}] is not of nested type`);
  }
  return rel.split('.');
}

// =============================================================================================
// Reading values out of documents
// =============================================================================================

type LeafPred = (v: unknown) => boolean;
/** Calls `pred` on every non-null leaf value at the field's path; true as soon as one matches. */
type AnyValue = (doc: Doc, pred: LeafPred) => boolean;

function anyLeaf(v: unknown, pred: LeafPred): boolean {
  if (v === null || v === undefined) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (anyLeaf(v[i], pred)) return true;
    return false;
  }
  return pred(v);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function makeAnyValue(segs: string[]): AnyValue {
  if (segs.length === 1) {
    const key = segs[0] as string;
    return (doc, pred) => {
      const v = doc[key];
      if (v === null || v === undefined) return false;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const e = v[i];
          if (e === null || e === undefined) continue;
          if (Array.isArray(e) ? anyLeaf(e, pred) : pred(e)) return true;
        }
        return false;
      }
      return pred(v);
    };
  }
  // Longer paths walk objects and arrays of objects; a source may also hold a dotted key
  // (`{"image.tags": [...]}`), which OpenSearch reads as the same field.
  const rest = segs.map((_, i) => segs.slice(i).join('.'));
  const n = segs.length;
  const walk = (o: unknown, i: number, pred: LeafPred): boolean => {
    if (i === n) return anyLeaf(o, pred);
    if (o === null || typeof o !== 'object') return false;
    if (Array.isArray(o)) {
      for (let k = 0; k < o.length; k++) if (walk(o[k], i, pred)) return true;
      return false;
    }
    const obj = o as Record<string, unknown>;
    if (walk(obj[segs[i] as string], i + 1, pred)) return true;
    if (i < n - 1) {
      const dotted = rest[i] as string;
      if (dotted in obj) return anyLeaf(obj[dotted], pred);
    }
    return false;
  };
  return (doc, pred) => walk(doc, 0, pred);
}

/** Every object at a path (for `nested`): arrays of objects yield each object. */
function makeObjects(segs: string[]): (doc: Doc, pred: (o: Doc) => boolean) => boolean {
  const any = makeAnyValue(segs);
  return (doc, pred) => any(doc, (v) => isPlainObject(v) && pred(v));
}

// =============================================================================================
// Value conversions (what OpenSearch would index, and how it parses query values)
// =============================================================================================

function keywordOf(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
    case 'bigint':
      return String(v);
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      return v instanceof Date ? v.toISOString() : undefined;
  }
}

/** A number whose canonical JS string is `s`, so `n === x` ⇔ `String(x) === s` for numbers. */
function canonicalNumber(s: string): number | undefined {
  if (s === '') return undefined;
  const n = Number(s);
  return String(n) === s ? n : undefined;
}

function docNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    if (v.trim() === '') return NaN;
    return Number(v);
  }
  if (typeof v === 'bigint') return Number(v);
  return NaN;
}

function queryNumber(v: unknown, field: string): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw new Error(`[${field}] cannot parse number from [${String(v)}]`);
  return n;
}

function docBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false' || v === '') return false;
  return undefined;
}

function queryBoolean(v: unknown, field: string): boolean {
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw new Error(`[${field}] Can't parse boolean value [${String(v)}], expected [true] or [false]`);
}

// ---------------------------------------------------------------------------------------------
// Dates: strict_date_optional_time || epoch_millis, and date math
// ---------------------------------------------------------------------------------------------

interface DateFormat {
  epochSecond: boolean;
}

function parseFormat(format: unknown): DateFormat {
  if (format === undefined) return { epochSecond: false };
  if (typeof format !== 'string') throw new Error(`Invalid date format: ${String(format)}`);
  const names = format.split('||');
  return { epochSecond: names.includes('epoch_second') && !names.includes('epoch_millis') };
}

function looksLikeDate(s: string): boolean {
  return s.startsWith('now') || /^[+-]?\d{4}-\d{2}/.test(s);
}

// ---------------------------------------------------------------------------------------------
// IP addresses (IPv4 stored IPv4-mapped in 16 bytes, as OpenSearch does)
// ---------------------------------------------------------------------------------------------

function parseIPv4Into(s: string, out: Uint8Array, offset: number): boolean {
  const parts = s.split('.');
  if (parts.length !== 4) return false;
  for (let k = 0; k < 4; k++) {
    const p = parts[k] as string;
    if (!/^\d{1,3}$/.test(p)) return false;
    const v = Number(p);
    if (v > 255) return false;
    out[offset + k] = v;
  }
  return true;
}

function parseIp(s: string): Uint8Array | null {
  const out = new Uint8Array(16);
  if (!s.includes(':')) {
    if (!parseIPv4Into(s, out, 12)) return null;
    out[10] = 0xff;
    out[11] = 0xff;
    return out;
  }
  if (s.includes('%')) return null;
  const dbl = s.indexOf('::');
  if (dbl !== s.lastIndexOf('::')) return null;
  const parseGroups = (part: string): number[] | null => {
    if (part === '') return [];
    const groups: number[] = [];
    const pieces = part.split(':');
    for (let k = 0; k < pieces.length; k++) {
      const p = pieces[k] as string;
      if (k === pieces.length - 1 && p.includes('.')) {
        const v4 = new Uint8Array(4);
        if (!parseIPv4Into(p, v4, 0)) return null;
        groups.push(((v4[0] as number) << 8) | (v4[1] as number), ((v4[2] as number) << 8) | (v4[3] as number));
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(p)) return null;
      groups.push(parseInt(p, 16));
    }
    return groups;
  };
  let groups: number[];
  if (dbl >= 0) {
    const head = parseGroups(s.slice(0, dbl));
    const tail = parseGroups(s.slice(dbl + 2));
    if (head === null || tail === null || head.length + tail.length > 7) return null;
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  } else {
    const all = parseGroups(s);
    if (all === null || all.length !== 8) return null;
    groups = all;
  }
  for (let k = 0; k < 8; k++) {
    out[2 * k] = (groups[k] as number) >> 8;
    out[2 * k + 1] = (groups[k] as number) & 0xff;
  }
  return out;
}

interface IpNet {
  bytes: Uint8Array;
  bits: number;
}

/** An address (prefix 128) or CIDR block; IPv4 prefixes count within the mapped range. */
function parseIpNet(s: string): IpNet | null {
  const slash = s.indexOf('/');
  if (slash < 0) {
    const bytes = parseIp(s);
    return bytes && { bytes, bits: 128 };
  }
  const addr = s.slice(0, slash);
  const len = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(len)) return null;
  const bytes = parseIp(addr);
  if (!bytes) return null;
  const v4 = !addr.includes(':');
  const bits = Number(len) + (v4 ? 96 : 0);
  if (bits > 128 || (v4 && Number(len) > 32)) return null;
  return { bytes, bits };
}

function inNet(ip: Uint8Array, net: IpNet): boolean {
  const full = net.bits >> 3;
  for (let k = 0; k < full; k++) if (ip[k] !== net.bytes[k]) return false;
  const rem = net.bits & 7;
  if (rem === 0) return true;
  const mask = (0xff << (8 - rem)) & 0xff;
  return ((ip[full] as number) & mask) === ((net.bytes[full] as number) & mask);
}

function compareIp(a: Uint8Array, b: Uint8Array): number {
  for (let k = 0; k < 16; k++) {
    const d = (a[k] as number) - (b[k] as number);
    if (d !== 0) return d;
  }
  return 0;
}

const ipCache = new Map<string, Uint8Array | null>();
function docIp(v: unknown): Uint8Array | null {
  if (typeof v !== 'string') return null;
  let ip = ipCache.get(v);
  if (ip === undefined) {
    ip = parseIp(v);
    if (ipCache.size >= 10_000) ipCache.clear();
    ipCache.set(v, ip);
  }
  return ip;
}

const IPISH_RE = /^(?:[0-9a-fA-F:]*:[0-9a-fA-F:.]*|\d{1,3}(?:\.\d{1,3}){3})(?:\/\d{1,3})?$/;

// ---------------------------------------------------------------------------------------------
// Text analysis with a small cache of analyzed document values
// ---------------------------------------------------------------------------------------------

const analysisCache = new Map<(text: string) => AnalyzedText, Map<string, AnalyzedText>>();

function analyzedCached(analyzer: (text: string) => AnalyzedText, text: string): AnalyzedText {
  let cache = analysisCache.get(analyzer);
  if (cache === undefined) {
    cache = new Map();
    analysisCache.set(analyzer, cache);
  }
  let a = cache.get(text);
  if (a === undefined) {
    a = analyzer(text);
    if (cache.size >= 2_000) cache.clear();
    cache.set(text, a);
  }
  return a;
}

function textValue(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

// =============================================================================================
// Query compilation
// =============================================================================================

const MATCH_ALL: DocPredicate = () => true;
const MATCH_NONE: DocPredicate = () => false;

function queryError(kind: string, message: string): Error {
  return new Error(`[${kind}] ${message}`);
}

function asObject(v: unknown, kind: string): Record<string, unknown> {
  if (!isPlainObject(v)) throw queryError(kind, `expected an object, got ${JSON.stringify(v)}`);
  return v;
}

function asClauses(v: unknown, kind: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v;
  return [asObject(v, kind)];
}

/** The single `{field: spec}` entry of a field-level query, ignoring top-level options. */
function fieldEntry(body: unknown, kind: string, options: readonly string[] = ['boost', '_name']): [string, unknown] {
  const obj = asObject(body, kind);
  const keys = Object.keys(obj).filter((k) => !options.includes(k));
  if (keys.length !== 1) {
    throw queryError(kind, `query expects exactly one field, got ${keys.length === 0 ? 'none' : keys.join(', ')}`);
  }
  const field = keys[0] as string;
  return [field, obj[field]];
}

/** Splits short form (`{f: v}`) and long form (`{f: {valueKey: v, ...options}}`). */
function longForm(spec: unknown, valueKeys: readonly string[], kind: string): { value: unknown; opts: Record<string, unknown> } {
  if (isPlainObject(spec)) {
    for (const k of valueKeys) {
      if (spec[k] !== undefined) return { value: spec[k], opts: spec };
    }
    throw queryError(kind, `missing [${valueKeys[0]}] in ${JSON.stringify(spec)}`);
  }
  return { value: spec, opts: {} };
}

function compileQuery(q: unknown, ctx: Ctx): DocPredicate {
  const obj = asObject(q, 'query');
  const keys = Object.keys(obj);
  if (keys.length !== 1) {
    throw new Error(`A query must have exactly one kind, got ${keys.length === 0 ? 'none' : keys.join(', ')}`);
  }
  const kind = keys[0] as string;
  const body = obj[kind];
  switch (kind) {
    case 'bool':
      return compileBool(asObject(body, kind), ctx);
    case 'match_all':
      return MATCH_ALL;
    case 'match_none':
      return MATCH_NONE;
    case 'term':
      return compileTerm(body, ctx);
    case 'terms':
      return compileTerms(body, ctx);
    case 'range':
      return compileRange(body, ctx);
    case 'exists':
      return compileExists(body, ctx);
    case 'ids':
      return compileIds(body, ctx);
    case 'prefix':
      return compilePrefixLike(body, ctx, 'prefix');
    case 'wildcard':
      return compilePrefixLike(body, ctx, 'wildcard');
    case 'fuzzy':
      return compileFuzzy(body, ctx);
    case 'match':
      return compileMatch(body, ctx);
    case 'match_phrase':
      return compileMatchPhrase(body, ctx);
    case 'nested':
      return compileNested(asObject(body, kind), ctx);
    case 'function_score': {
      const fs = asObject(body, kind);
      return fs.query === undefined ? MATCH_ALL : compileQuery(fs.query, ctx);
    }
    case 'constant_score': {
      const cs = asObject(body, kind);
      if (cs.filter === undefined) throw queryError(kind, 'requires a [filter]');
      return compileQuery(cs.filter, ctx);
    }
    case 'dis_max': {
      const dm = asObject(body, kind);
      const parts = asClauses(dm.queries, kind).map((c) => compileQuery(c, ctx));
      return anyOf(parts);
    }
    case 'boosting': {
      const b = asObject(body, kind);
      if (b.positive === undefined) throw queryError(kind, 'requires [positive]');
      return compileQuery(b.positive, ctx);
    }
    default:
      throw new Error(`Unsupported query kind: ${kind}`);
  }
}

function allOf(preds: DocPredicate[]): DocPredicate {
  switch (preds.length) {
    case 0:
      return MATCH_ALL;
    case 1:
      return preds[0] as DocPredicate;
    case 2: {
      const [a, b] = preds as [DocPredicate, DocPredicate];
      return (d) => a(d) && b(d);
    }
    case 3: {
      const [a, b, c] = preds as [DocPredicate, DocPredicate, DocPredicate];
      return (d) => a(d) && b(d) && c(d);
    }
    default:
      return (d) => {
        for (let i = 0; i < preds.length; i++) if (!(preds[i] as DocPredicate)(d)) return false;
        return true;
      };
  }
}

function anyOf(preds: DocPredicate[]): DocPredicate {
  switch (preds.length) {
    case 0:
      return MATCH_NONE;
    case 1:
      return preds[0] as DocPredicate;
    case 2: {
      const [a, b] = preds as [DocPredicate, DocPredicate];
      return (d) => a(d) || b(d);
    }
    default:
      return (d) => {
        for (let i = 0; i < preds.length; i++) if ((preds[i] as DocPredicate)(d)) return true;
        return false;
      };
  }
}

/**
 * OpenSearch's `minimum_should_match` arithmetic (`Queries.calculateMinShouldMatch`): integers,
 * negative integers, percentages, negative percentages and conditional specs (`3<90%`).
 */
export function minimumShouldMatch(optionalClauses: number, spec: number | string): number {
  const calc = (s: string): number => {
    s = s.trim();
    let result = optionalClauses;
    if (s.includes('<')) {
      const specs = s.replace(/\s*<\s*/g, '<').split(/\s+/);
      for (const one of specs) {
        const [bound, rest] = one.split('<') as [string, string | undefined];
        if (rest === undefined || !/^-?\d+$/.test(bound)) throw new Error(`Invalid minimum_should_match: ${s}`);
        if (optionalClauses <= Number(bound)) return result;
        result = calc(rest);
      }
      return result;
    }
    if (s.endsWith('%')) {
      const pct = s.slice(0, -1);
      if (!/^-?\d+$/.test(pct)) throw new Error(`Invalid minimum_should_match: ${s}`);
      const v = (optionalClauses * Number(pct)) / 100;
      result = v < 0 ? optionalClauses + Math.trunc(v) : Math.trunc(v);
    } else {
      if (!/^-?\d+$/.test(s)) throw new Error(`Invalid minimum_should_match: ${s}`);
      const v = Number(s);
      result = v < 0 ? optionalClauses + v : v;
    }
    return result < 0 ? 0 : result;
  };
  return calc(String(spec));
}

function compileBool(body: Record<string, unknown>, ctx: Ctx): DocPredicate {
  for (const key of Object.keys(body)) {
    if (!['must', 'filter', 'should', 'must_not', 'minimum_should_match', 'boost', '_name', 'adjust_pure_negative'].includes(key)) {
      throw queryError('bool', `unknown clause [${key}]`);
    }
  }
  const required = [...asClauses(body.must, 'bool'), ...asClauses(body.filter, 'bool')].map((c) => compileQuery(c, ctx));
  const should = asClauses(body.should, 'bool').map((c) => compileQuery(c, ctx));
  const mustNot = asClauses(body.must_not, 'bool').map((c) => compileQuery(c, ctx));

  const parts: DocPredicate[] = [...required];
  if (should.length > 0) {
    const spec = body.minimum_should_match as number | string | undefined;
    const msm = spec !== undefined ? minimumShouldMatch(should.length, spec) : required.length > 0 ? 0 : 1;
    if (msm > should.length) return MATCH_NONE;
    if (msm === 1) parts.push(anyOf(should));
    else if (msm === should.length) parts.push(allOf(should));
    else if (msm > 1) {
      parts.push((d) => {
        let hits = 0;
        for (let i = 0; i < should.length; i++) {
          if ((should[i] as DocPredicate)(d) && ++hits >= msm) return true;
          if (hits + (should.length - i - 1) < msm) return false;
        }
        return false;
      });
    }
  }
  if (mustNot.length > 0) {
    const excluded = anyOf(mustNot);
    parts.push((d) => !excluded(d));
  }
  return allOf(parts);
}

// ---------------------------------------------------------------------------------------------
// Leaf predicates per field kind
// ---------------------------------------------------------------------------------------------

/** Wraps a leaf predicate into a document predicate reading the field's values. */
function onValues(field: Field, pred: LeafPred): DocPredicate {
  if (field.kind === 'none') return MATCH_NONE;
  const any = makeAnyValue(field.segs);
  return (d) => any(d, pred);
}

/** For text fields: a predicate over the analyzed terms of each value. */
function onTerms(field: Field, pred: (term: string) => boolean): DocPredicate {
  const analyzer = field.analyzer;
  return onValues(field, (v) => {
    const text = textValue(v);
    if (text === undefined) return false;
    const { terms } = analyzedCached(analyzer, text);
    for (let i = 0; i < terms.length; i++) if (pred(terms[i] as string)) return true;
    return false;
  });
}

function scalarQueryValue(v: unknown, kind: string, field: string): string | number | boolean {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) throw queryError(kind, `[${field}] query does not support an array of values`);
  throw queryError(kind, `[${field}] unsupported value ${JSON.stringify(v)}`);
}

/** Leaf predicate for "value equals q" on a field kind (term, terms, match on non-text). */
function equalsPredicate(field: Field, raw: string | number | boolean, caseInsensitive: boolean, kind: string): LeafPred | null {
  const name = field.name;
  switch (field.kind) {
    case 'keyword':
    case 'infer': {
      const q = keywordOf(raw) as string;
      if (caseInsensitive) {
        const ql = q.toLowerCase();
        return (v) => keywordOf(v)?.toLowerCase() === ql;
      }
      if (field.kind === 'keyword') {
        const qn = canonicalNumber(q);
        return (v) =>
          typeof v === 'string' ? v === q : typeof v === 'number' ? v === qn : keywordOf(v) === q;
      }
      // inferred: each document value's type decides how to compare
      const qn = typeof raw === 'number' ? raw : canonicalNumber(q) ?? (q.trim() !== '' && Number.isFinite(Number(q)) ? Number(q) : undefined);
      const qb = raw === true || raw === 'true' ? true : raw === false || raw === 'false' ? false : undefined;
      const qNet = IPISH_RE.test(q) ? parseIpNet(q) : null;
      // a date-looking document string is a date under dynamic mapping: compare instants
      let qDate: [number, number] | null = typeof raw === 'number' ? [Math.trunc(raw), Math.trunc(raw)] : null;
      if (typeof raw === 'string' && looksLikeDate(raw)) {
        try {
          const lo = compileDateBound(raw, false, {}, name);
          const hi = compileDateBound(raw, true, {}, name);
          if (typeof lo === 'number' && typeof hi === 'number') qDate = [lo, hi];
        } catch {
          qDate = null;
        }
      }
      return (v) => {
        switch (typeof v) {
          case 'string':
            if (v === q) return true;
            if (qNet !== null && IPISH_RE.test(v)) {
              const ip = docIp(v);
              return ip !== null && inNet(ip, qNet);
            }
            if (qDate !== null && looksLikeDate(v)) {
              const t = toEpochMillis(v);
              return t >= qDate[0] && t <= qDate[1];
            }
            return false;
          case 'number':
            return v === qn;
          case 'boolean':
            return v === qb;
          default:
            if (v instanceof Date && qDate !== null) {
              const t = v.getTime();
              return t >= qDate[0] && t <= qDate[1];
            }
            return false;
        }
      };
    }
    case 'text': {
      // term-level queries on text fields see the indexed (analyzed) terms
      const q = keywordOf(raw) as string;
      return textTermLeaf(field, caseInsensitive ? q.toLowerCase() : q, caseInsensitive);
    }
    case 'integer':
    case 'float':
    case 'double': {
      const n = queryNumber(raw, name);
      if (field.kind === 'integer') {
        if (!Number.isInteger(n)) return () => false;
        return (v) => Math.trunc(docNumber(v)) === n;
      }
      if (field.kind === 'float') {
        const f = Math.fround(n);
        return (v) => Math.fround(docNumber(v)) === f;
      }
      return (v) => docNumber(v) === n;
    }
    case 'date': {
      const lo = compileDateBound(raw, false, {}, name);
      const hi = compileDateBound(raw, true, {}, name);
      if (typeof lo === 'number' && typeof hi === 'number') {
        return (v) => {
          const t = toEpochMillis(v);
          return t >= lo && t <= hi;
        };
      }
      return null; // depends on now: handled by the caller through a range
    }
    case 'boolean': {
      const b = queryBoolean(raw, name);
      return (v) => docBoolean(v) === b;
    }
    case 'ip': {
      const net = typeof raw === 'string' ? parseIpNet(raw) : null;
      if (net === null) throw queryError(kind, `'${String(raw)}' is not an IP string literal`);
      return (v) => {
        const ip = docIp(v);
        return ip !== null && inNet(ip, net);
      };
    }
    case 'object':
    case 'nested':
    case 'none':
      // an object is not a value field: OpenSearch finds no such field and matches nothing
      return () => false;
  }
}

function textTermLeaf(field: Field, q: string, caseInsensitive: boolean): LeafPred {
  const analyzer = field.analyzer;
  return (v) => {
    const text = textValue(v);
    if (text === undefined) return false;
    const { terms } = analyzedCached(analyzer, text);
    for (let i = 0; i < terms.length; i++) {
      const t = terms[i] as string;
      if ((caseInsensitive ? t.toLowerCase() : t) === q) return true;
    }
    return false;
  };
}

// ---------------------------------------------------------------------------------------------
// Fast paths for top-level fields: the hot loop compares values directly instead of calling a
// leaf closure per element; anything unusual falls back to the general predicate.
// ---------------------------------------------------------------------------------------------

function topLevelKey(field: Field): string | null {
  return field.segs.length === 1 ? (field.segs[0] as string) : null;
}

/** `field` has the string `q` (strings compared directly; other value types go to `slow`). */
function fastStringEquals(key: string, q: string, slow: LeafPred): DocPredicate {
  return (d) => {
    const v = d[key];
    if (v === q) return true;
    if (typeof v === 'string' || v === undefined || v === null) return false;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const e = v[i];
        if (e === q) return true;
        if (typeof e !== 'string' && e !== null && e !== undefined && anyLeaf(e, slow)) return true;
      }
      return false;
    }
    return slow(v);
  };
}

/** `field` has one of a few strings `qs` (or, for numbers in the source, one of `ns`). */
function fastStringIn(key: string, qs: string[], ns: number[], slow: LeafPred): DocPredicate {
  const n = qs.length;
  const m = ns.length;
  const hasString = (e: string) => {
    for (let j = 0; j < n; j++) if (e === qs[j]) return true;
    return false;
  };
  const hasNumber = (e: number) => {
    for (let j = 0; j < m; j++) if (e === ns[j]) return true;
    return false;
  };
  return (d) => {
    const v = d[key];
    if (typeof v === 'string') return hasString(v);
    if (typeof v === 'number') return hasNumber(v);
    if (v === undefined || v === null) return false;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const e = v[i];
        if (typeof e === 'string') {
          if (hasString(e)) return true;
        } else if (typeof e === 'number') {
          if (hasNumber(e)) return true;
        } else if (e !== null && e !== undefined && anyLeaf(e, slow)) {
          return true;
        }
      }
      return false;
    }
    return slow(v);
  };
}

/** `field` has a number inside [lo, hi] (after `conv`, e.g. float32 rounding). */
function fastNumberWithin(
  key: string,
  lo: number,
  loInc: boolean,
  hi: number,
  hiInc: boolean,
  conv: ((x: number) => number) | null,
  slow: DocPredicate,
): DocPredicate {
  return (d) => {
    const v = d[key];
    if (typeof v === 'number') {
      const x = conv === null ? v : conv(v);
      return (loInc ? x >= lo : x > lo) && (hiInc ? x <= hi : x < hi);
    }
    return v === undefined || v === null ? false : slow(d);
  };
}

function compileTerm(body: unknown, ctx: Ctx): DocPredicate {
  const [name, spec] = fieldEntry(body, 'term');
  const { value, opts } = longForm(spec, ['value'], 'term');
  const raw = scalarQueryValue(value, 'term', name);
  const field = resolveField(ctx, name);
  if (field.kind === 'none') return MATCH_NONE;
  const pred = equalsPredicate(field, raw, opts.case_insensitive === true, 'term');
  if (pred === null) {
    // a date term relative to now: the same as a range from its rounded-down to rounded-up value
    return compileRangeOn(field, { gte: raw, lte: raw }, ctx);
  }
  const key = topLevelKey(field);
  const plainString = typeof raw === 'string' && (field.kind === 'keyword' || (field.kind === 'infer' && !IPISH_RE.test(raw) && !looksLikeDate(raw)));
  if (key !== null && opts.case_insensitive !== true && plainString) {
    return fastStringEquals(key, raw, pred);
  }
  if (key !== null && field.kind === 'boolean') {
    const b = queryBoolean(raw, name);
    const general = onValues(field, pred);
    return (d) => {
      const v = d[key];
      return typeof v === 'boolean' ? v === b : general(d);
    };
  }
  return onValues(field, pred);
}

function compileTerms(body: unknown, ctx: Ctx): DocPredicate {
  const [name, values] = fieldEntry(body, 'terms', ['boost', '_name', 'value_type']);
  if (!Array.isArray(values)) {
    throw queryError('terms', `[${name}] terms lookup is not supported; give an array of values`);
  }
  const field = resolveField(ctx, name);
  if (field.kind === 'none' || values.length === 0) return MATCH_NONE;
  if (field.kind === 'keyword') {
    const strs = new Set<string>();
    const nums = new Set<number>();
    for (const v of values) {
      const s = keywordOf(scalarQueryValue(v, 'terms', name)) as string;
      strs.add(s);
      const n = canonicalNumber(s);
      if (n !== undefined) nums.add(n);
    }
    const leaf: LeafPred = (v) =>
      typeof v === 'string' ? strs.has(v) : typeof v === 'number' ? nums.has(v) : strs.has(keywordOf(v) ?? '\u0000none');
    const key = topLevelKey(field);
    if (key !== null && strs.size <= 16) {
      return fastStringIn(key, [...strs], [...nums], leaf);
    }
    return onValues(field, leaf);
  }
  if (field.kind === 'integer' || field.kind === 'double') {
    const nums = new Set<number>();
    for (const v of values) nums.add(queryNumber(scalarQueryValue(v, 'terms', name), name));
    const integer = field.kind === 'integer';
    return onValues(field, (v) => nums.has(integer ? Math.trunc(docNumber(v)) : docNumber(v)));
  }
  if (field.kind === 'text') {
    const strs = new Set(values.map((v) => keywordOf(scalarQueryValue(v, 'terms', name)) as string));
    return onTerms(field, (t) => strs.has(t));
  }
  // everything else: any of the equality predicates
  const preds = values.map((v) => {
    const raw = scalarQueryValue(v, 'terms', name);
    const p = equalsPredicate(field, raw, false, 'terms');
    return p === null ? compileRangeOn(field, { gte: raw, lte: raw }, ctx) : onValues(field, p);
  });
  return anyOf(preds);
}

// ---------------------------------------------------------------------------------------------
// range
// ---------------------------------------------------------------------------------------------

interface Bounds {
  gt?: unknown;
  gte?: unknown;
  lt?: unknown;
  lte?: unknown;
}

const RANGE_OPTIONS = new Set([
  'gt', 'gte', 'lt', 'lte', 'from', 'to', 'include_lower', 'include_upper', 'format', 'time_zone',
  'relation', 'boost', '_name',
]);

function normalizeBounds(spec: Record<string, unknown>, name: string): Bounds {
  for (const k of Object.keys(spec)) {
    if (!RANGE_OPTIONS.has(k)) throw queryError('range', `[${name}] query does not support [${k}]`);
  }
  const b: Bounds = {};
  const set = (k: keyof Bounds, v: unknown) => {
    if (v !== undefined && v !== null) b[k] = v;
  };
  set('gt', spec.gt);
  set('gte', spec.gte);
  set('lt', spec.lt);
  set('lte', spec.lte);
  if (spec.from !== undefined && spec.from !== null) set(spec.include_lower === false ? 'gt' : 'gte', spec.from);
  if (spec.to !== undefined && spec.to !== null) set(spec.include_upper === false ? 'lt' : 'lte', spec.to);
  return b;
}

function compileRange(body: unknown, ctx: Ctx): DocPredicate {
  const [name, spec] = fieldEntry(body, 'range');
  const opts = asObject(spec, 'range');
  const field = resolveField(ctx, name);
  return compileRangeOn(field, opts, ctx);
}

/** A comparison of one number against compiled lower/upper bounds. */
function numericInterval(lo: number, loInc: boolean, hi: number, hiInc: boolean): (x: number) => boolean {
  return (x) => (loInc ? x >= lo : x > lo) && (hiInc ? x <= hi : x < hi);
}

function compileRangeOn(field: Field, spec: Record<string, unknown>, ctx: Ctx): DocPredicate {
  const name = field.name;
  const b = normalizeBounds(spec, name);
  if (field.kind === 'none') return MATCH_NONE;
  const loRaw = b.gt ?? b.gte;
  const hiRaw = b.lt ?? b.lte;
  const loInc = b.gt === undefined;
  const hiInc = b.lt === undefined;

  switch (field.kind) {
    case 'integer':
    case 'float':
    case 'double': {
      const conv = field.kind === 'float' ? Math.fround : field.kind === 'integer' ? Math.trunc : (x: number) => x;
      const qconv = field.kind === 'float' ? Math.fround : (x: number) => x;
      const lo = loRaw === undefined ? -Infinity : qconv(queryNumber(loRaw, name));
      const hi = hiRaw === undefined ? Infinity : qconv(queryNumber(hiRaw, name));
      const within = numericInterval(lo, loInc, hi, hiInc);
      const general = onValues(field, (v) => {
        const x = docNumber(v);
        return x === x && within(conv(x));
      });
      const key = topLevelKey(field);
      if (key === null) return general;
      return fastNumberWithin(key, lo, loInc, hi, hiInc, field.kind === 'double' ? null : conv, general);
    }
    case 'date':
      return compileDateRange(field, b, spec, ctx);
    case 'keyword':
    case 'text': {
      const lo = loRaw === undefined ? undefined : (keywordOf(scalarQueryValue(loRaw, 'range', name)) as string);
      const hi = hiRaw === undefined ? undefined : (keywordOf(scalarQueryValue(hiRaw, 'range', name)) as string);
      const within = (s: string) => {
        if (lo !== undefined) {
          const c = compareStrings(s, lo);
          if (loInc ? c < 0 : c <= 0) return false;
        }
        if (hi !== undefined) {
          const c = compareStrings(s, hi);
          if (hiInc ? c > 0 : c >= 0) return false;
        }
        return true;
      };
      if (field.kind === 'text') return onTerms(field, within);
      return onValues(field, (v) => {
        const s = keywordOf(v);
        return s !== undefined && within(s);
      });
    }
    case 'boolean': {
      const lo = loRaw === undefined ? -Infinity : queryBoolean(loRaw, name) ? 1 : 0;
      const hi = hiRaw === undefined ? Infinity : queryBoolean(hiRaw, name) ? 1 : 0;
      const within = numericInterval(lo, loInc, hi, hiInc);
      return onValues(field, (v) => {
        const x = docBoolean(v);
        return x !== undefined && within(x ? 1 : 0);
      });
    }
    case 'ip': {
      const parse = (raw: unknown): Uint8Array => {
        const ip = typeof raw === 'string' ? parseIp(raw) : null;
        if (ip === null) throw queryError('range', `'${String(raw)}' is not an IP string literal`);
        return ip;
      };
      const lo = loRaw === undefined ? null : parse(loRaw);
      const hi = hiRaw === undefined ? null : parse(hiRaw);
      return onValues(field, (v) => {
        const ip = docIp(v);
        if (ip === null) return false;
        if (lo !== null) {
          const c = compareIp(ip, lo);
          if (loInc ? c < 0 : c <= 0) return false;
        }
        if (hi !== null) {
          const c = compareIp(ip, hi);
          if (hiInc ? c > 0 : c >= 0) return false;
        }
        return true;
      });
    }
    case 'infer':
      return compileInferredRange(field, b, spec, ctx);
    default:
      // objects are not value fields: nothing matches
      return MATCH_NONE;
  }
}

/** A resolved date interval: a test on instants, and a fast test on canonical ISO strings. */
interface DateInterval {
  test: (t: number) => boolean;
  /** 1 or 0 for an ISO string in UTC `yyyy-MM-ddTHH:mm:ss(.SSS)Z` form, -1 for other shapes. */
  testIso: (s: string) => number;
}

/** Canonical strings of an instant for ordering ISO strings: 24-char form, 20-char form, ms. */
function isoKeys(t: number): { k24: string; k20: string; ms: number } | null {
  if (!Number.isFinite(t)) return null;
  const d = new Date(t);
  const y = d.getUTCFullYear();
  if (y < 0 || y > 9999) return null;
  const k24 = d.toISOString();
  return { k24, k20: k24.slice(0, 19) + 'Z', ms: d.getUTCMilliseconds() };
}

/** Compares a canonical UTC ISO string with an instant's keys: <0, 0, >0, or NaN (other shape). */
function compareIso(s: string, k: { k24: string; k20: string; ms: number }): number {
  if (s.charCodeAt(10) !== 84 /* T */ || s.charCodeAt(4) !== 45 || s.charCodeAt(13) !== 58) return NaN;
  const n = s.length;
  if (n === 24) {
    if (s.charCodeAt(23) !== 90 /* Z */ || s.charCodeAt(19) !== 46 /* . */) return NaN;
    return s === k.k24 ? 0 : s < k.k24 ? -1 : 1;
  }
  if (n === 20) {
    if (s.charCodeAt(19) !== 90) return NaN;
    return s === k.k20 ? -k.ms : s < k.k20 ? -1 : 1;
  }
  return NaN;
}

function makeDateInterval(lo: number, loInc: boolean, hi: number, hiInc: boolean): DateInterval {
  const test = numericInterval(lo, loInc, hi, hiInc);
  const loKeys = lo === -Infinity ? null : isoKeys(lo);
  const hiKeys = hi === Infinity ? null : isoKeys(hi);
  const usable = (lo === -Infinity || loKeys !== null) && (hi === Infinity || hiKeys !== null);
  const testIso = (s: string): number => {
    if (!usable) return -1;
    if (loKeys !== null) {
      const c = compareIso(s, loKeys);
      if (c !== c) return -1;
      if (loInc ? c < 0 : c <= 0) return 0;
    }
    if (hiKeys !== null) {
      const c = compareIso(s, hiKeys);
      if (c !== c) return -1;
      if (hiInc ? c > 0 : c >= 0) return 0;
    }
    // without bounds compareIso never ran: still make sure the shape is one we understand
    if (loKeys === null && hiKeys === null) return -1;
    return 1;
  };
  return { test, testIso };
}

/**
 * The interval of a date range with OpenSearch rounding: `gte`/`lt` round date math down,
 * `gt`/`lte` round up. `current()` returns the interval for the current clock (bounds on `now`
 * are re-resolved when the clock moves; constant bounds give one fixed interval).
 */
function compileDateInterval(b: Bounds, spec: Record<string, unknown>, ctx: Ctx, name: string): () => DateInterval {
  const tz = parseTimeZone(spec.time_zone);
  const format = parseFormat(spec.format);
  const loRaw = b.gt ?? b.gte;
  const hiRaw = b.lt ?? b.lte;
  const loInc = b.gt === undefined;
  const hiInc = b.lt === undefined;
  // gt rounds up then excludes; gte rounds down and includes; lt rounds down and excludes;
  // lte rounds up and includes
  const lo = loRaw === undefined ? -Infinity : compileDateBound(loRaw, !loInc, { tzOffset: tz, epochSecond: format.epochSecond }, name);
  const hi = hiRaw === undefined ? Infinity : compileDateBound(hiRaw, hiInc, { tzOffset: tz, epochSecond: format.epochSecond }, name);
  if (typeof lo === 'number' && typeof hi === 'number') {
    const fixed = makeDateInterval(lo, loInc, hi, hiInc);
    return () => fixed;
  }
  const nowFn = ctx.now;
  let lastNow = NaN;
  let current = makeDateInterval(0, true, -1, true);
  return () => {
    const now = nowFn();
    if (now !== lastNow) {
      lastNow = now;
      current = makeDateInterval(typeof lo === 'number' ? lo : lo(now), loInc, typeof hi === 'number' ? hi : hi(now), hiInc);
    }
    return current;
  };
}

function compileDateRange(field: Field, b: Bounds, spec: Record<string, unknown>, ctx: Ctx): DocPredicate {
  const current = compileDateInterval(b, spec, ctx, field.name);
  const any = makeAnyValue(field.segs);
  let interval = current();
  const leaf: LeafPred = (v) => {
    if (typeof v === 'string') {
      const r = interval.testIso(v);
      if (r >= 0) return r === 1;
    }
    const t = toEpochMillis(v);
    return t === t && interval.test(t);
  };
  return (d) => {
    interval = current();
    return any(d, leaf);
  };
}

/** Range without a mapping: each document value's type picks numeric, date or string order. */
function compileInferredRange(field: Field, b: Bounds, spec: Record<string, unknown>, ctx: Ctx): DocPredicate {
  const name = field.name;
  const loRaw = b.gt ?? b.gte;
  const hiRaw = b.lt ?? b.lte;
  const loInc = b.gt === undefined;
  const hiInc = b.lt === undefined;
  const bounds = [loRaw, hiRaw].filter((x) => x !== undefined);
  for (const x of bounds) scalarQueryValue(x, 'range', name);

  const isNumeric = (x: unknown) => typeof x === 'number' || (typeof x === 'string' && x.trim() !== '' && Number.isFinite(Number(x)));
  const allNumeric = bounds.every(isNumeric);
  const dateish = bounds.every((x) => x instanceof Date || typeof x === 'number' || (typeof x === 'string' && (looksLikeDate(x) || /^\d{4}$/.test(x) || isNumeric(x))));

  // numeric interpretation
  const numeric: ((x: number) => boolean) | null = allNumeric
    ? numericInterval(
        loRaw === undefined ? -Infinity : Number(loRaw),
        loInc,
        hiRaw === undefined ? Infinity : Number(hiRaw),
        hiInc,
      )
    : null;
  // date interpretation (numbers are epoch millis)
  let dateInterval: (() => DateInterval) | null = null;
  if (dateish) {
    try {
      dateInterval = compileDateInterval(b, spec, ctx, name);
    } catch {
      dateInterval = null;
    }
  }
  // string interpretation
  const lo = loRaw === undefined ? undefined : keywordOf(loRaw);
  const hi = hiRaw === undefined ? undefined : keywordOf(hiRaw);
  const stringWithin = (s: string) => {
    if (lo !== undefined) {
      const c = compareStrings(s, lo);
      if (loInc ? c < 0 : c <= 0) return false;
    }
    if (hi !== undefined) {
      const c = compareStrings(s, hi);
      if (hiInc ? c > 0 : c >= 0) return false;
    }
    return true;
  };

  const any = makeAnyValue(field.segs);
  let dateWithin: (t: number) => boolean = () => false;
  const leaf: LeafPred = (v) => {
    if (v instanceof Date) return dateInterval !== null && dateWithin(v.getTime());
    if (typeof v === 'number') {
      if (numeric !== null) return numeric(v);
      return dateInterval !== null && dateWithin(Math.trunc(v));
    }
    if (typeof v === 'string') {
      if (numeric !== null && isNumeric(v)) return numeric(Number(v));
      if (dateInterval !== null && looksLikeDate(v)) {
        const t = toEpochMillis(v);
        return t === t && dateWithin(t);
      }
      return stringWithin(v);
    }
    return false;
  };
  return (d) => {
    if (dateInterval !== null) dateWithin = dateInterval().test;
    return any(d, leaf);
  };
}

// ---------------------------------------------------------------------------------------------
// exists, ids
// ---------------------------------------------------------------------------------------------

function hasAnyValue(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  if (Array.isArray(v)) return v.some(hasAnyValue);
  if (isPlainObject(v)) return Object.values(v).some(hasAnyValue);
  return true;
}

function compileExists(body: unknown, ctx: Ctx): DocPredicate {
  const obj = asObject(body, 'exists');
  const name = obj.field;
  if (typeof name !== 'string') throw queryError('exists', 'requires a [field]');
  const field = resolveField(ctx, name);
  if (field.kind === 'none') return MATCH_NONE;
  const any = makeAnyValue(field.segs);
  return (d) => any(d, hasAnyValue);
}

function compileIds(body: unknown, ctx: Ctx): DocPredicate {
  const obj = asObject(body, 'ids');
  const values = obj.values ?? [];
  if (!Array.isArray(values)) throw queryError('ids', '[values] must be an array');
  if (ctx.scope !== null) return MATCH_NONE;
  const ids = new Set(values.map((v) => String(v)));
  return (d) => {
    const id = d._id ?? d.id;
    return id !== undefined && id !== null && ids.has(String(id));
  };
}

// ---------------------------------------------------------------------------------------------
// prefix, wildcard, fuzzy
// ---------------------------------------------------------------------------------------------

function compilePrefixLike(body: unknown, ctx: Ctx, kind: 'prefix' | 'wildcard'): DocPredicate {
  const [name, spec] = fieldEntry(body, kind);
  const { value, opts } = longForm(spec, kind === 'wildcard' ? ['value', 'wildcard'] : ['value'], kind);
  const pattern = keywordOf(scalarQueryValue(value, kind, name)) as string;
  const ci = opts.case_insensitive === true;
  const field = resolveField(ctx, name);
  let test: (s: string) => boolean;
  if (kind === 'prefix') {
    const p = ci ? pattern.toLowerCase() : pattern;
    test = ci ? (s) => s.toLowerCase().startsWith(p) : (s) => s.startsWith(p);
  } else {
    test = compileWildcard(pattern, ci);
  }
  return compileStringMatcher(field, test, kind);
}

/** Runs a string test on keyword values, on analyzed terms of text values. */
function compileStringMatcher(field: Field, test: (s: string) => boolean, kind: string): DocPredicate {
  switch (field.kind) {
    case 'none':
    case 'object':
    case 'nested':
      return MATCH_NONE;
    case 'text':
      return onTerms(field, test);
    case 'keyword':
    case 'infer':
      return onValues(field, (v) => {
        const s = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? keywordOf(v) : undefined;
        return s !== undefined && test(s);
      });
    default:
      throw queryError(kind, `can only be used on keyword and text fields, not on [${field.name}] of type ${field.kind}`);
  }
}

function compileFuzzy(body: unknown, ctx: Ctx): DocPredicate {
  const [name, spec] = fieldEntry(body, 'fuzzy');
  const { value, opts } = longForm(spec, ['value'], 'fuzzy');
  const q = keywordOf(scalarQueryValue(value, 'fuzzy', name)) as string;
  const fuzziness = (opts.fuzziness ?? 'AUTO') as number | string;
  const maxEdits = fuzzyMaxEdits(q, fuzziness);
  const prefixLength = typeof opts.prefix_length === 'number' ? opts.prefix_length : 0;
  const transpositions = opts.transpositions !== false;
  const field = resolveField(ctx, name);
  return compileStringMatcher(field, fuzzyTest(q, maxEdits, prefixLength, transpositions), 'fuzzy');
}

function fuzzyTest(q: string, maxEdits: number, prefixLength: number, transpositions: boolean): (s: string) => boolean {
  let prefix = '';
  if (prefixLength > 0) {
    const cps = [...q];
    prefix = cps.slice(0, prefixLength).join('');
  }
  return (s) => {
    if (s === q) return true;
    if (prefix !== '' && !s.startsWith(prefix)) return false;
    return withinEditDistance(s, q, maxEdits, transpositions);
  };
}

// ---------------------------------------------------------------------------------------------
// match, match_phrase
// ---------------------------------------------------------------------------------------------

const MATCH_OPTIONS = ['query'];

function compileMatch(body: unknown, ctx: Ctx): DocPredicate {
  const [name, spec] = fieldEntry(body, 'match');
  const { value, opts } = longForm(spec, MATCH_OPTIONS, 'match');
  const raw = scalarQueryValue(value, 'match', name);
  const field = resolveField(ctx, name);
  if (field.kind === 'none') return MATCH_NONE;
  if (field.kind !== 'text' && field.kind !== 'infer') {
    // non-text fields: the whole query value is one term
    const p = equalsPredicate(field, raw, false, 'match');
    return p === null ? compileRangeOn(field, { gte: raw, lte: raw }, ctx) : onValues(field, p);
  }
  const analyzer = typeof opts.analyzer === 'string' ? analyzerFor(opts.analyzer) : field.analyzer;
  const queryTerms = analyzer(keywordOf(raw) as string).terms;
  if (queryTerms.length === 0) return opts.zero_terms_query === 'all' ? MATCH_ALL : MATCH_NONE;
  const operator = typeof opts.operator === 'string' ? opts.operator.toLowerCase() : 'or';
  let required = operator === 'and' ? queryTerms.length : 1;
  if (opts.minimum_should_match !== undefined && operator !== 'and') {
    required = minimumShouldMatch(queryTerms.length, opts.minimum_should_match as number | string);
    if (required === 0) required = 1;
  }
  if (required > queryTerms.length) return MATCH_NONE;
  const termTests: Array<(t: string) => boolean> = queryTerms.map((qt) => {
    if (opts.fuzziness === undefined) return (t: string) => t === qt;
    const edits = fuzzyMaxEdits(qt, opts.fuzziness as number | string);
    const prefixLength = typeof opts.prefix_length === 'number' ? opts.prefix_length : 0;
    return fuzzyTest(qt, edits, prefixLength, opts.fuzzy_transpositions !== false);
  });
  const fieldAnalyzer = field.analyzer;
  const any = makeAnyValue(field.segs);
  if (required === 1) {
    return (d) =>
      any(d, (v) => {
        const text = textValue(v);
        if (text === undefined) return false;
        const { terms } = analyzedCached(fieldAnalyzer, text);
        for (const t of terms) for (const test of termTests) if (test(t)) return true;
        return false;
      });
  }
  // several query terms required: count the query terms present anywhere in the field
  return (d) => {
    const found = new Array<boolean>(termTests.length).fill(false);
    let count = 0;
    any(d, (v) => {
      const text = textValue(v);
      if (text === undefined) return false;
      const { terms } = analyzedCached(fieldAnalyzer, text);
      for (const t of terms) {
        for (let k = 0; k < termTests.length; k++) {
          if (!found[k] && (termTests[k] as (t: string) => boolean)(t)) {
            found[k] = true;
            count++;
          }
        }
      }
      return count >= required;
    });
    return count >= required;
  };
}

/** Whether the query terms occur at their relative positions (within `slop` moves) in `doc`. */
function phraseMatches(doc: AnalyzedText, qTerms: string[], qPos: number[], slop: number): boolean {
  const n = doc.terms.length;
  const m = qTerms.length;
  if (n === 0) return false;
  if (slop === 0) {
    // position → term of the document (positions are strictly increasing)
    const first = qTerms[0] as string;
    for (let i = 0; i < n; i++) {
      if (doc.terms[i] !== first) continue;
      const base = (doc.positions[i] as number) - (qPos[0] as number);
      let ok = true;
      let j = i;
      for (let k = 1; k < m && ok; k++) {
        const want = base + (qPos[k] as number);
        while (j < n && (doc.positions[j] as number) < want) j++;
        ok = j < n && doc.positions[j] === want && doc.terms[j] === qTerms[k];
      }
      if (ok) return true;
    }
    return false;
  }
  // sloppy: some choice of distinct occurrences whose offsets (docPos − queryPos) span ≤ slop
  const occ: number[][] = qTerms.map((t) => {
    const list: number[] = [];
    for (let i = 0; i < n; i++) if (doc.terms[i] === t) list.push(doc.positions[i] as number);
    return list;
  });
  if (occ.some((l) => l.length === 0)) return false;
  const starts = new Set<number>();
  occ.forEach((l, k) => l.forEach((p) => starts.add(p - (qPos[k] as number))));
  const used = new Set<number>();
  const assign = (k: number, lo: number): boolean => {
    if (k === m) return true;
    for (const p of occ[k] as number[]) {
      const off = p - (qPos[k] as number);
      if (off < lo || off > lo + slop || used.has(p)) continue;
      used.add(p);
      if (assign(k + 1, lo)) return true;
      used.delete(p);
    }
    return false;
  };
  for (const lo of starts) {
    used.clear();
    if (assign(0, lo)) return true;
  }
  return false;
}

function compileMatchPhrase(body: unknown, ctx: Ctx): DocPredicate {
  const [name, spec] = fieldEntry(body, 'match_phrase');
  const { value, opts } = longForm(spec, MATCH_OPTIONS, 'match_phrase');
  const raw = scalarQueryValue(value, 'match_phrase', name);
  const field = resolveField(ctx, name);
  if (field.kind === 'none') return MATCH_NONE;
  if (field.kind !== 'text' && field.kind !== 'infer') {
    const p = equalsPredicate(field, raw, false, 'match_phrase');
    return p === null ? compileRangeOn(field, { gte: raw, lte: raw }, ctx) : onValues(field, p);
  }
  const analyzer = typeof opts.analyzer === 'string' ? analyzerFor(opts.analyzer) : field.analyzer;
  const q = analyzer(keywordOf(raw) as string);
  if (q.terms.length === 0) return opts.zero_terms_query === 'all' ? MATCH_ALL : MATCH_NONE;
  const slop = typeof opts.slop === 'number' ? opts.slop : 0;
  const qTerms = q.terms;
  const qPos = q.positions;
  const fieldAnalyzer = field.analyzer;
  if (qTerms.length === 1) {
    const only = qTerms[0] as string;
    return onTerms(field, (t) => t === only);
  }
  return onValues(field, (v) => {
    const text = textValue(v);
    return text !== undefined && phraseMatches(analyzedCached(fieldAnalyzer, text), qTerms, qPos, slop);
  });
}

// ---------------------------------------------------------------------------------------------
// nested
// ---------------------------------------------------------------------------------------------

function compileNested(body: Record<string, unknown>, ctx: Ctx): DocPredicate {
  const path = body.path;
  if (typeof path !== 'string') throw queryError('nested', 'requires a [path]');
  if (body.query === undefined) throw queryError('nested', 'requires a [query]');
  const rel = resolveNestedPath(ctx, path, body.ignore_unmapped === true);
  if (rel === null) return MATCH_NONE;
  const inner = compileQuery(body.query, { ...ctx, scope: path });
  const objects = makeObjects(rel);
  return (d) => objects(d, inner);
}
