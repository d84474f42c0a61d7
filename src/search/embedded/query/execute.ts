import {
  asClauses,
  asObject,
  fieldEntry,
  isPlainObject,
  keywordOf,
  longForm,
  minimumShouldMatch,
  queryError,
  scalarQueryValue,
} from '../../../../grammar/index.js';
import { Bitmap } from '../postings/bitmap.js';
import type { Field, FieldSet, NestedField } from '../index/field-set.js';
import { boostOf, FEW_CANDIDATES, fuzzyBits, matchBits, patternBits, phraseBits, rangeBits, termBits, termsBits, type LeafEnv } from './leaf-queries.js';
import type { PhysicalIndex } from '../index/physical-index.js';
import {
  combineBoost,
  combineFunctions,
  constantScorer,
  idRangeBits,
  IdPermutation,
  randomScorer,
  seedOf,
  type BoostMode,
  type ScoreFunction,
  type ScoreMode,
  type Scorer,
} from './score.js';
import { outsideSearchMemory } from '../search-memory.js';
import { cachedFilter, filterFor, rememberFilter } from './filter-set-cache.js';
import { atLeast } from '../terms/text-index.js';

/*
 * Query execution: the DSL as bitmap algebra. Every query yields the bitmap of its matching
 * documents and, only when a sort asks for `_score`, a scorer. A result may contain documents
 * outside the scope's live set (posting lists keep tombstoned documents): the caller intersects
 * with the live documents once, at the end. `cand` (candidates) lets expensive clauses (column
 * scans, phrase checks) look only at documents that can still match; a result is only required
 * to be right within its candidates.
 */

/** Where a query runs: the root documents of an index, or the objects of a nested path. */
export interface Scope {
  set: FieldSet;
  /** Every document of the scope (live documents at the root, every object in a nested scope). */
  universe: Bitmap;
  /** The physical index at the root (for ids), null in a nested scope. */
  index: PhysicalIndex | null;
  nestedPath: string | null;
}

export interface Hits {
  bits: Bitmap;
  score: Scorer | null;
}

const BOOL_KEYS = new Set(['must', 'filter', 'should', 'must_not', 'minimum_should_match', 'boost', '_name', 'adjust_pure_negative']);

function union(list: Bitmap[]): Bitmap {
  if (list.length === 0) return new Bitmap();
  let out = list[0]!;
  for (let i = 1; i < list.length; i++) out = out.or(list[i]!);
  return out;
}

function kindOf(q: unknown): [string, unknown] {
  const obj = asObject(q, 'query');
  const keys = Object.keys(obj);
  if (keys.length !== 1) {
    throw new Error(`A query must have exactly one kind, got ${keys.length === 0 ? 'none' : keys.join(', ')}`);
  }
  return [keys[0]!, obj[keys[0]!]];
}

/** A range whose bounds are plain numbers: its documents do not depend on the clock. */
function hasFixedBounds(opts: Record<string, unknown>): boolean {
  let bounds = 0;
  for (const key of ['gt', 'gte', 'lt', 'lte', 'from', 'to']) {
    const v = opts[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number') return false;
    bounds++;
  }
  return bounds > 0 && opts.time_zone === undefined && opts.format === undefined;
}

const childUniverse = new WeakMap<FieldSet, { length: number; bits: Bitmap }>();

function allChildren(set: FieldSet): Bitmap {
  const c = childUniverse.get(set);
  if (c && c.length === set.length) return c.bits;
  const bits = outsideSearchMemory(() => Bitmap.range(set.length));
  childUniverse.set(set, { length: set.length, bits });
  return bits;
}

/** A leaf's documents, scored by its boost when scores are wanted. */
function leafHits(score: boolean, bits: Bitmap, boost: number): Hits {
  return { bits, score: score ? constantScorer(boost) : null };
}

export class Executor {
  constructor(
    /** Clock for date math, fixed for the whole request. */
    readonly now: number,
    /** Whether scores are needed at all (a sort on `_score`). */
    readonly wantScores: boolean,
  ) {}

  /** Matching documents of `q` in `scope` (not yet intersected with the live documents). */
  run(q: unknown, scope: Scope, cand?: Bitmap, scoring = true): Hits {
    const [kind, body] = kindOf(q);
    const score = scoring && this.wantScores;
    const env = this.leafEnv(scope);
    switch (kind) {
      case 'match_all':
        return leafHits(score, scope.universe, boostOf(asObject(body ?? {}, kind)));
      case 'match_none':
        return { bits: new Bitmap(), score: null };
      case 'bool':
        return this.bool(asObject(body, kind), scope, cand, score);
      case 'term': {
        const [name, spec] = fieldEntry(body, kind);
        const { value, opts } = longForm(spec, ['value'], kind);
        const raw = scalarQueryValue(value, kind, name);
        if (name === '_id' && scope.index) return leafHits(score, this.ids([raw], scope), boostOf(opts));
        const f = this.field(scope, name);
        return leafHits(score, f ? termBits(f, raw, opts.case_insensitive === true, env, cand) : new Bitmap(), boostOf(opts));
      }
      case 'terms': {
        const [name, values] = fieldEntry(body, kind, ['boost', '_name', 'value_type']);
        const boost = boostOf(asObject(body, kind));
        if (name === '_id' && scope.index && Array.isArray(values)) return leafHits(score, this.ids(values, scope), boost);
        const f = this.field(scope, name);
        if (!f) {
          if (!Array.isArray(values)) throw queryError(kind, `[${name}] terms lookup is not supported; give an array of values`);
          return leafHits(score, new Bitmap(), boost);
        }
        if (scope.index && Array.isArray(values) && values.length >= 2 && !(cand !== undefined && cand.size <= FEW_CANDIDATES)) {
          // a filter's hidden tags: the same list on every search, worth remembering (one value
          // is its posting list as it is); a few candidates look up each value instead
          const key = `${name}\u0000${JSON.stringify(values)}`;
          const hit = cachedFilter(scope.index, key);
          if (hit) return leafHits(score, hit, boost);
          if (cand !== undefined && cand.size * 64 < env.space) return leafHits(score, termsBits(f, values, env, cand), boost);
          return leafHits(score, 
            rememberFilter(scope.index, key, () => termsBits(f, values, env), (c) => termsBits(f, values, this.leafEnv(scope), c)),
            boost,
          );
        }
        return leafHits(score, termsBits(f, values, env, cand), boost);
      }
      case 'range': {
        const [name, spec] = fieldEntry(body, kind);
        const opts = asObject(spec, kind);
        const f = this.field(scope, name);
        if (!f) return leafHits(score, new Bitmap(), boostOf(opts));
        if (scope.index && (cand === undefined || cand.size * 64 >= env.space) && hasFixedBounds(opts)) {
          // a numeric range such as `score.gte:100`, asked again and again: remembered like a
          // filter's tags until the index changes (the engine's answer to a query cache)
          const key = `range\u0000${name}\u0000${JSON.stringify(opts)}`;
          return leafHits(score, 
            filterFor(scope.index, key, () => rangeBits(f, opts, env), (c) => rangeBits(f, opts, this.leafEnv(scope), c)),
            boostOf(opts),
          );
        }
        return leafHits(score, rangeBits(f, opts, env, cand), boostOf(opts));
      }
      case 'exists': {
        const obj = asObject(body, kind);
        if (typeof obj.field !== 'string') throw queryError(kind, 'requires a [field]');
        return leafHits(score, this.exists(scope, obj.field), boostOf(obj));
      }
      case 'ids': {
        const obj = asObject(body, kind);
        const values = obj.values ?? [];
        if (!Array.isArray(values)) throw queryError(kind, '[values] must be an array');
        return leafHits(score, scope.index ? this.ids(values, scope) : new Bitmap(), boostOf(obj));
      }
      case 'prefix':
      case 'wildcard': {
        const [name, spec] = fieldEntry(body, kind);
        const { value, opts } = longForm(spec, kind === 'wildcard' ? ['value', 'wildcard'] : ['value'], kind);
        const pattern = keywordOf(scalarQueryValue(value, kind, name))!;
        const f = this.field(scope, name);
        return leafHits(score, f ? patternBits(f, kind, pattern, opts.case_insensitive === true, env, cand) : new Bitmap(), boostOf(opts));
      }
      case 'fuzzy': {
        const [name, spec] = fieldEntry(body, kind);
        const { value, opts } = longForm(spec, ['value'], kind);
        const q = keywordOf(scalarQueryValue(value, kind, name))!;
        const f = this.field(scope, name);
        return leafHits(score, f ? fuzzyBits(f, q, opts, env, cand) : new Bitmap(), boostOf(opts));
      }
      case 'match':
      case 'match_phrase': {
        const [name, spec] = fieldEntry(body, kind);
        const { value, opts } = longForm(spec, ['query'], kind);
        const raw = scalarQueryValue(value, kind, name);
        const f = this.field(scope, name);
        if (!f) return leafHits(score, new Bitmap(), boostOf(opts));
        return leafHits(score, kind === 'match' ? matchBits(f, raw, opts, env, cand) : phraseBits(f, raw, opts, env, cand), boostOf(opts));
      }
      case 'constant_score': {
        const cs = asObject(body, kind);
        if (cs.filter === undefined) throw queryError(kind, 'requires a [filter]');
        return leafHits(score, this.run(cs.filter, scope, cand, false).bits, boostOf(cs));
      }
      case 'function_score':
        return this.functionScore(asObject(body, kind), scope, cand, score);
      case 'dis_max': {
        const dm = asObject(body, kind);
        const parts = asClauses(dm.queries, kind).map((c) => this.run(c, scope, cand, score));
        const bits = union(parts.map((p) => p.bits));
        if (!score) return { bits, score: null };
        const tie = typeof dm.tie_breaker === 'number' ? dm.tie_breaker : 0;
        const boost = boostOf(dm);
        return {
          bits,
          score: (d) => {
            let max = 0;
            let sum = 0;
            for (const p of parts) {
              if (!p.bits.has(d)) continue;
              const s = p.score!(d);
              sum += s;
              if (s > max) max = s;
            }
            return (max + tie * (sum - max)) * boost;
          },
        };
      }
      case 'boosting': {
        const b = asObject(body, kind);
        if (b.positive === undefined) throw queryError(kind, 'requires [positive]');
        const pos = this.run(b.positive, scope, cand, score);
        if (!score) return { bits: pos.bits, score: null };
        const neg = b.negative === undefined ? new Bitmap() : this.run(b.negative, scope, pos.bits, false).bits;
        const nb = typeof b.negative_boost === 'number' ? b.negative_boost : 1;
        const boost = boostOf(b);
        return { bits: pos.bits, score: (d) => pos.score!(d) * (neg.has(d) ? nb : 1) * boost };
      }
      case 'nested':
        return this.nested(asObject(body, kind), scope, score);
      default:
        throw new Error(`Unsupported query kind: ${kind}`);
    }
  }

  /** What leaf queries read of the scope, as it is now (a remembered set's clause runs again after writes). */
  private leafEnv(scope: Scope): LeafEnv {
    return { now: this.now, space: scope.set.length, universe: scope.universe, set: scope.set };
  }

  /** The field a name designates in this scope (undefined: OpenSearch would not find it). */
  private field(scope: Scope, name: string): Field | undefined {
    if (scope.nestedPath !== null && !name.startsWith(scope.nestedPath + '.')) return undefined;
    return scope.set.byPath.get(name);
  }

  private ids(values: unknown[], scope: Scope): Bitmap {
    const index = scope.index!;
    const docs: number[] = [];
    for (const v of values) {
      const s = String(v);
      const n = Number(s);
      if (s.trim() === '' || String(n) !== s) continue;
      const d = index.docOf(n);
      if (d >= 0) docs.push(d);
    }
    docs.sort((a, b) => a - b);
    return Bitmap.fromSorted([...new Set(docs)]);
  }

  private exists(scope: Scope, name: string): Bitmap {
    const f = this.field(scope, name);
    if (!f) return new Bitmap();
    const one = (x: Field): Bitmap => {
      switch (x.kind) {
        case 'numeric':
          return x.col.exists();
        case 'keyword':
        case 'boolean':
        case 'ip':
          return x.dict.docs;
        case 'text':
          return x.present;
        default:
          return new Bitmap();
      }
    };
    if (f.kind === 'nested') return new Bitmap();
    if (f.kind !== 'object') return one(f);
    return union(scope.set.leavesUnder(name).map(one));
  }

  /** Rough cost of a required clause, to run cheap posting lookups before column scans. */
  private cost(q: unknown, scope: Scope): number {
    if (!isPlainObject(q)) return 1;
    const kind = Object.keys(q)[0];
    switch (kind) {
      case 'ids':
      case 'exists':
      case 'match_all':
      case 'match_none':
        return 0;
      case 'term':
      case 'terms': {
        const body = q[kind];
        const name = isPlainObject(body) ? Object.keys(body).find((k) => k !== 'boost' && k !== '_name') : undefined;
        const f = name === undefined ? undefined : this.field(scope, name);
        return f && f.kind === 'numeric' && !f.col.terms ? 3 : 0;
      }
      case 'range':
        return 3;
      case 'match':
      case 'match_phrase':
      case 'wildcard':
      case 'prefix':
      case 'fuzzy':
        return 2;
      default:
        return 1;
    }
  }

  private bool(body: Record<string, unknown>, scope: Scope, cand: Bitmap | undefined, score: boolean): Hits {
    for (const key of Object.keys(body)) if (!BOOL_KEYS.has(key)) throw queryError('bool', `unknown clause [${key}]`);
    const must = asClauses(body.must, 'bool');
    const filter = asClauses(body.filter, 'bool');
    const should = asClauses(body.should, 'bool');
    const mustNot = asClauses(body.must_not, 'bool');
    let msm = 0;
    // As OpenSearch: a positive minimum_should_match with no should clause (but a must or
    // filter) matches nothing.
    const emptyShouldSpec = should.length === 0 && must.length + filter.length > 0 ? body.minimum_should_match : undefined;
    if (emptyShouldSpec !== undefined && minimumShouldMatch(0, emptyShouldSpec as number | string) > 0) {
      return { bits: new Bitmap(), score: null };
    }
    if (should.length > 0) {
      const spec = body.minimum_should_match as number | string | undefined;
      // With no must or filter clause Lucene still wants one should clause, whatever the spec says.
      msm = Math.max(spec !== undefined ? minimumShouldMatch(should.length, spec) : 0, must.length + filter.length > 0 ? 0 : 1);
      if (msm > should.length) return { bits: new Bitmap(), score: null };
    }
    const required = [
      ...must.map((q) => ({ q, scoring: true, cost: this.cost(q, scope) })),
      ...filter.map((q) => ({ q, scoring: false, cost: this.cost(q, scope) })),
    ].sort((a, b) => a.cost - b.cost);
    // few candidates (a narrow enclosing clause, or the documents a write changed): start from
    // them, so that no clause's whole set meets another's
    let acc: Bitmap | null = cand !== undefined && cand.size * 64 < scope.set.length ? cand : null;
    const scorers: Scorer[] = [];
    for (const r of required) {
      const h = this.run(r.q, scope, acc ?? cand, r.scoring && score);
      acc = acc ? acc.and(h.bits) : h.bits;
      if (h.score && r.scoring) scorers.push(h.score);
      if (acc.isEmpty()) return { bits: acc, score: null };
    }
    let shouldHits: Hits[] = [];
    if (should.length > 0 && (msm > 0 || score)) {
      shouldHits = should.map((q) => this.run(q, scope, acc ?? cand, score));
      if (msm > 0) {
        const narrow = acc !== null && acc.size * 64 < scope.set.length ? acc : null;
        const lists = shouldHits.map((h) => (narrow ? narrow.and(h.bits) : h.bits));
        const combined = msm === 1 ? union(lists) : atLeast(lists, msm);
        acc = acc ? acc.and(combined) : combined;
      }
    }
    if (mustNot.length > 0) {
      const base: Bitmap = acc ?? cand ?? scope.universe;
      acc = base.andNot(this.excluded(mustNot, scope, base));
    }
    const bits = acc ?? scope.universe;
    if (!score) return { bits, score: null };
    const boost = boostOf(body);
    if (scorers.length === 1 && shouldHits.length === 0 && boost === 1) {
      // one scoring clause (a listing's query inside the filter's exclusions): its score as is,
      // which keeps a random order recognisable by the top-k
      return { bits, score: scorers[0]! };
    }
    return {
      bits,
      score: (d) => {
        let s = 0;
        for (let i = 0; i < scorers.length; i++) s += scorers[i]!(d);
        for (let i = 0; i < shouldHits.length; i++) {
          const h = shouldHits[i]!;
          if (h.score && h.bits.has(d)) s += h.score(d);
        }
        return s * boost;
      },
    };
  }

  /**
   * The union of `must_not` clauses. A listing excludes the same things on every search (not
   * approved, hidden, the filter's tags and expression): when the clauses depend on nothing but
   * the index, their union is remembered until the index changes.
   */
  private excluded(mustNot: unknown[], scope: Scope, base: Bitmap): Bitmap {
    const index = scope.index;
    if (base.size <= FEW_CANDIDATES) return union(mustNot.map((q) => base.and(this.run(q, scope, base, false).bits)));
    if (index === null || !mustNot.every((q) => this.indexOnly(q, scope))) {
      return union(mustNot.map((q) => this.run(q, scope, base, false).bits));
    }
    const key = `must_not\u0000${JSON.stringify(mustNot)}`;
    const within = (c: Bitmap | undefined) => union(mustNot.map((q) => this.run(q, scope, c, false).bits));
    // a few candidates (a narrow query, or the documents a write changed): not worth building
    // the whole set for them
    const kept = cachedFilter(index, key);
    if (kept === undefined && base.size * 64 < index.docCount) return within(base);
    return kept ?? rememberFilter(index, key, () => within(undefined), within);
  }

  /** Whether a query's matches depend on the index alone (not on the clock, nor on scores). */
  private indexOnly(q: unknown, scope: Scope): boolean {
    if (!isPlainObject(q)) return false;
    const kinds = Object.keys(q);
    if (kinds.length !== 1) return false;
    const kind = kinds[0]!;
    const body = q[kind];
    switch (kind) {
      case 'match_all':
      case 'match_none':
      case 'exists':
      case 'ids':
        return true;
      case 'term':
      case 'terms': {
        if (!isPlainObject(body)) return false;
        const names = Object.keys(body).filter((k) => k !== 'boost' && k !== '_name' && k !== 'value_type');
        if (names.length !== 1) return false;
        // dates take date math ("now-1d")
        const f = this.field(scope, names[0]!);
        return !(f?.kind === 'numeric' && f.type === 'date');
      }
      case 'bool': {
        if (!isPlainObject(body)) return false;
        return ['must', 'filter', 'should', 'must_not'].every((k) => {
          const v = body[k];
          return (v === undefined ? [] : Array.isArray(v) ? v : [v]).every((c) => this.indexOnly(c, scope));
        });
      }
      default:
        return false;
    }
  }

  private functionScore(fs: Record<string, unknown>, scope: Scope, cand: Bitmap | undefined, score: boolean): Hits {
    if (fs.min_score !== undefined) throw new Error('Unsupported query option: function_score.min_score');
    const inner: Hits =
      fs.query === undefined
        ? { bits: scope.universe, score: score ? constantScorer(1) : null }
        : this.run(fs.query, scope, cand, score);
    if (!score) return { bits: inner.bits, score: null };
    const containers: Record<string, unknown>[] = [];
    if (fs.functions !== undefined) {
      if (!Array.isArray(fs.functions)) throw queryError('function_score', '[functions] must be an array');
      for (const f of fs.functions) containers.push(asObject(f, 'function_score'));
    }
    const shorthand: Record<string, unknown> = {};
    for (const k of ['random_score', 'weight', 'field_value_factor', 'script_score', 'gauss', 'linear', 'exp']) {
      if (fs[k] !== undefined) shorthand[k] = fs[k];
    }
    if (Object.keys(shorthand).length > 0) containers.push(shorthand);
    const fns = containers.map((c) => this.scoreFunction(c, scope));
    const scoreMode = (fs.score_mode ?? 'multiply') as ScoreMode;
    const boostMode = (fs.boost_mode ?? 'multiply') as BoostMode;
    const maxBoost = typeof fs.max_boost === 'number' ? fs.max_boost : Infinity;
    const boost = boostOf(fs);
    const q = inner.score!;
    const only = fns.length === 1 ? fns[0]! : null;
    if (only && only.applies === null && only.weight === 1 && boostMode === 'replace' && maxBoost >= 1) {
      // the random order of a listing: no need to go through the generic combination
      const value = only.value;
      const scorer: Scorer = boost === 1 ? value : (d) => value(d) * boost;
      const random = (only.value as Scorer).random;
      if (random && boost > 0) scorer.random = { ...random, boost };
      return { bits: inner.bits, score: scorer };
    }
    return {
      bits: inner.bits,
      score: (d) => {
        const f = fns.length === 0 ? 1 : combineFunctions(fns, scoreMode, d, maxBoost);
        return (boostMode === 'replace' ? f : combineBoost(q(d), f, boostMode)) * boost;
      },
    };
  }

  private scoreFunction(c: Record<string, unknown>, scope: Scope): ScoreFunction {
    const filterBits = c.filter === undefined ? null : this.run(c.filter, scope, undefined, false).bits;
    const weight = typeof c.weight === 'number' ? c.weight : 1;
    const applies = filterBits ? (d: number) => filterBits.has(d) : null;
    for (const k of Object.keys(c)) {
      if (k === 'filter' || k === 'weight') continue;
      if (k !== 'random_score') throw new Error(`Unsupported function_score function: ${k}`);
    }
    if (c.random_score === undefined) return { applies, value: () => 1, weight };
    const rs = asObject(c.random_score, 'random_score');
    const seed = seedOf(rs.seed);
    const field = rs.field;
    const index = scope.index;
    if (index && (field === undefined || field === 'id' || field === '_id' || field === '_seq_no')) {
      const perm = new IdPermutation(seed, idRangeBits(index.maxId));
      const ids = index.ids;
      const value: Scorer = (d) => perm.rankOf(ids[d]!) / perm.size;
      value.random = { perm, ids, docOf: index.irregularIds === 0 ? (id) => index.docOf(id) : null, boost: 1 };
      return { applies, value, weight };
    }
    let valueOf: (d: number) => number;
    if (typeof field === 'string' && scope.set.byPath.get(field)?.kind === 'numeric') {
      const col = (scope.set.byPath.get(field) as Extract<Field, { kind: 'numeric' }>).col;
      valueOf = (d) => col.min(d) ?? 0;
    } else valueOf = (d) => d;
    const rnd = randomScorer(seed);
    const value: Scorer = (d) => rnd(valueOf(d));
    return { applies, value, weight };
  }

  private nested(body: Record<string, unknown>, scope: Scope, score: boolean): Hits {
    const path = body.path;
    if (typeof path !== 'string') throw queryError('nested', 'requires a [path]');
    if (body.query === undefined) throw queryError('nested', 'requires a [query]');
    const ignore = body.ignore_unmapped === true;
    if (scope.nestedPath !== null && !path.startsWith(scope.nestedPath + '.')) {
      if (ignore) return { bits: new Bitmap(), score: null };
      throw queryError('nested', `nested path [${path}] is not inside the enclosing nested path [${scope.nestedPath}]`);
    }
    const f = scope.set.byPath.get(path);
    if (!f) {
      if (ignore) return { bits: new Bitmap(), score: null };
      throw queryError('nested', `failed to find nested object under path [${path}]`);
    }
    if (f.kind !== 'nested') throw queryError('nested', `nested object under path [${path}] is not of nested type`);
    const child: Scope = { set: f.child, universe: allChildren(f.child), index: null, nestedPath: path };
    const inner = this.run(body.query, child, undefined, score);
    const bits = parentsOf(f, inner.bits);
    if (!score) return { bits, score: null };
    const mode = (body.score_mode ?? 'avg') as string;
    const boost = boostOf(body);
    return {
      bits,
      score: (d) => {
        if (mode === 'none') return 0;
        const first = f.first[d]!;
        const n = f.count[d]!;
        let sum = 0;
        let k = 0;
        let max = -Infinity;
        let min = Infinity;
        for (let c = first; c < first + n; c++) {
          if (!inner.bits.has(c)) continue;
          const s = inner.score!(c);
          sum += s;
          k++;
          if (s > max) max = s;
          if (s < min) min = s;
        }
        if (k === 0) return 0;
        const v = mode === 'sum' ? sum : mode === 'max' ? max : mode === 'min' ? min : sum / k;
        return v * boost;
      },
    };
  }
}

/** Parents of the given nested objects (children are numbered in parent order). */
export function parentsOf(f: NestedField, children: Bitmap): Bitmap {
  const out: number[] = [];
  let last = -1;
  const parentOf = f.parentOf;
  children.forEach((c) => {
    const p = parentOf[c]!;
    if (p !== last) {
      out.push(p);
      last = p;
    }
  });
  return Bitmap.fromSorted(out);
}
