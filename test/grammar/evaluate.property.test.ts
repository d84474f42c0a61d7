/**
 * For random query trees over a small vocabulary and random image documents, evaluating the
 * compiled DSL (grammar/evaluate/, OpenSearch semantics) must agree with a direct reading of
 * the tree written here from the reference's rules, independently of the compiler.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate, print, type QueryNode, type RangeOp } from '../../grammar/index.js';
import { compile, compileQuery } from '../../grammar/compiler.js';
import { imageFields } from '../../src/search/indexes/images/fields.js';
import { imagesMapping } from '../../src/search/indexes/images/mapping.js';
import { assertValidQuery } from '../support/dsl-schema.js';
import { queryTree } from './arbitraries.js';

const NOW = Date.UTC(2024, 0, 10, 12, 0, 0);
const DAY = 86_400_000;

interface ImageDoc {
  id: number;
  tags: string[];
  score?: number;
  width?: number;
  faves?: number;
  aspect_ratio?: number;
  created_at?: string;
  animated?: boolean;
}

type Leaf =
  | { k: 'tag'; text: string; name: string }
  | { k: 'wild'; pattern: string }
  | { k: 'fuzzy'; name: string; dist: 1 | 2 }
  | { k: 'all' }
  | { k: 'num'; field: 'score' | 'width' | 'faves' | 'aspect_ratio'; op: RangeOp; value: number }
  | { k: 'numfuzz'; field: 'score' | 'width' | 'aspect_ratio'; center: number; dev: number }
  | { k: 'date'; op: RangeOp; parts: number[] }
  | { k: 'ago'; op: RangeOp; n: number; unit: 'day' | 'week' }
  | { k: 'bool'; value: boolean };

/** A term node carrying its meaning, so the reading below never looks at the text. */
type LeafTerm = QueryNode & { kind: 'term'; leaf: Leaf };

const VOCABULARY = ['safe', 'sofa', 'solo', 'pony', 'ponies', 'tree', 'twilight sparkle', 'artist:foo', 'artist:foo_bar'];
const TAG_SPELLINGS: Array<[string, string]> = [
  ['safe', 'safe'],
  ['Safe', 'safe'],
  ['solo', 'solo'],
  ['pony', 'pony'],
  ['PONIES', 'ponies'],
  ['tree', 'tree'],
  ['twilight sparkle', 'twilight sparkle'],
  ['Twilight_Sparkle', 'twilight sparkle'],
  ['artist:foo', 'artist:foo'],
  ['Artist: Foo_Bar', 'artist:foo_bar'],
  ['nothing', 'nothing'],
];
const PATTERNS = ['p*', '*o*', 's?fe', 's?f?', 'artist:*', '*e', 't*e', 'pon?', '*'];
const OPS: RangeOp[] = ['eq', 'gt', 'gte', 'lt', 'lte'];
const FLOATS = [0.5, 1, 1.25, 1.5, 2];

const leafArb: fc.Arbitrary<Leaf> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...TAG_SPELLINGS).map(([text, name]): Leaf => ({ k: 'tag', text, name })) },
  fc.constantFrom(...PATTERNS.filter((p) => p !== '*')).map((pattern): Leaf => ({ k: 'wild', pattern })),
  fc.record({ name: fc.constantFrom('sofe', 'pny', 'tre', 'pnoy', 'slo'), dist: fc.constantFrom<1 | 2>(1, 2) }).map((r): Leaf => ({ k: 'fuzzy', ...r })),
  fc.constant<Leaf>({ k: 'all' }),
  fc.record({ field: fc.constantFrom<'score' | 'width' | 'faves'>('score', 'width', 'faves'), op: fc.constantFrom(...OPS), value: fc.integer({ min: -5, max: 12 }) }).map((r): Leaf => ({ k: 'num', ...r })),
  fc.record({ field: fc.constant<'aspect_ratio'>('aspect_ratio'), op: fc.constantFrom(...OPS), value: fc.constantFrom(...FLOATS) }).map((r): Leaf => ({ k: 'num', ...r })),
  fc.record({ field: fc.constantFrom<'score' | 'width'>('score', 'width'), center: fc.integer({ min: -5, max: 12 }), dev: fc.integer({ min: 0, max: 4 }) }).map((r): Leaf => ({ k: 'numfuzz', ...r })),
  fc.record({ field: fc.constant<'aspect_ratio'>('aspect_ratio'), center: fc.constantFrom(...FLOATS), dev: fc.constantFrom(0, 0.25, 0.5) }).map((r): Leaf => ({ k: 'numfuzz', ...r })),
  fc.record({
    op: fc.constantFrom(...OPS),
    parts: fc.oneof(
      fc.tuple(fc.constantFrom(2019, 2020, 2023)),
      fc.tuple(fc.constantFrom(2020, 2023), fc.integer({ min: 1, max: 12 })),
      fc.tuple(fc.constantFrom(2020, 2024), fc.constantFrom(1, 2), fc.integer({ min: 1, max: 28 })),
    ),
  }).map((r): Leaf => ({ k: 'date', ...r })),
  fc.record({ op: fc.constantFrom(...OPS), n: fc.integer({ min: 0, max: 10 }), unit: fc.constantFrom<'day' | 'week'>('day', 'week') }).map((r): Leaf => ({ k: 'ago', ...r })),
  fc.boolean().map((value): Leaf => ({ k: 'bool', value })),
);

function text(leaf: Leaf): string {
  const suffix = (op: RangeOp) => (op === 'eq' ? '' : `.${op}`);
  switch (leaf.k) {
    case 'tag':
      return leaf.text;
    case 'wild':
      return leaf.pattern;
    case 'fuzzy':
      return `${leaf.name}~${leaf.dist}`;
    case 'all':
      return '*';
    case 'num':
      return `${leaf.field}${suffix(leaf.op)}:${leaf.value}`;
    case 'numfuzz':
      return `${leaf.field}:${leaf.center}~${leaf.dev}`;
    case 'date':
      return `created_at${suffix(leaf.op)}:${leaf.parts.map((p, i) => (i === 0 ? String(p) : String(p).padStart(2, '0'))).join('-')}`;
    case 'ago':
      return `created_at${suffix(leaf.op)}:${leaf.n} ${leaf.unit}${leaf.n === 1 ? '' : 's'} ago`;
    case 'bool':
      return `animated:${leaf.value}`;
  }
}

const leafTerm = leafArb.map((leaf): QueryNode => ({ kind: 'term', raw: text(leaf), leaf }) as LeafTerm);

/** Optimal string alignment distance (edits with adjacent transpositions). */
function osa(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** `[lower, upper)` of an absolute date, in ms. */
function interval(parts: number[]): [number, number] {
  const [y, m, d] = parts as [number, number?, number?];
  if (m === undefined) return [Date.UTC(y, 0, 1), Date.UTC(y + 1, 0, 1)];
  if (d === undefined) return [Date.UTC(y, m - 1, 1), Date.UTC(y, m, 1)];
  return [Date.UTC(y, m - 1, d), Date.UTC(y, m - 1, d + 1)];
}

/** The range operators as the reference maps them onto an interval. */
function inInterval(op: RangeOp, t: number, [lower, upper]: [number, number]): boolean {
  switch (op) {
    case 'eq':
      return lower <= t && t < upper;
    case 'gt':
      return t > upper;
    case 'gte':
      return t >= lower;
    case 'lt':
      return t < lower;
    case 'lte':
      return t <= upper;
  }
}

function compare(op: RangeOp, v: number, q: number): boolean {
  return op === 'eq' ? v === q : op === 'gt' ? v > q : op === 'gte' ? v >= q : op === 'lt' ? v < q : v <= q;
}

function matchLeaf(leaf: Leaf, doc: ImageDoc): boolean {
  switch (leaf.k) {
    case 'tag':
      return doc.tags.includes(leaf.name);
    case 'wild': {
      const re = new RegExp(`^${leaf.pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 's');
      return doc.tags.some((t) => re.test(t));
    }
    case 'fuzzy':
      return doc.tags.some((t) => osa(t, leaf.name) <= leaf.dist);
    case 'all':
      return true;
    case 'num': {
      const v = doc[leaf.field];
      return v !== undefined && compare(leaf.op, v, leaf.value);
    }
    case 'numfuzz': {
      const v = doc[leaf.field];
      return v !== undefined && leaf.center - leaf.dev <= v && v <= leaf.center + leaf.dev;
    }
    case 'date':
      return doc.created_at !== undefined && inInterval(leaf.op, Date.parse(doc.created_at), interval(leaf.parts));
    case 'ago': {
      if (doc.created_at === undefined) return false;
      const unit = (leaf.unit === 'day' ? 1 : 7) * DAY;
      return inInterval(leaf.op, Date.parse(doc.created_at), [NOW - (leaf.n + 1) * unit, NOW - leaf.n * unit]);
    }
    case 'bool':
      return doc.animated === leaf.value;
  }
}

/** The direct reading of a tree. */
function matches(node: QueryNode, doc: ImageDoc): boolean {
  switch (node.kind) {
    case 'term':
      return matchLeaf((node as LeafTerm).leaf, doc);
    case 'and':
      return node.children.every((c) => matches(c, doc));
    case 'or':
      return node.children.some((c) => matches(c, doc));
    case 'not':
      return !matches(node.child, doc);
    case 'boost':
      return matches(node.child, doc);
  }
}

const BOUNDARY_DATES = [
  Date.UTC(2020, 0, 1),
  Date.UTC(2021, 0, 1),
  Date.UTC(2020, 1, 29),
  Date.UTC(2023, 5, 1),
  Date.UTC(2024, 0, 1),
  NOW - 3 * DAY,
  NOW - 4 * DAY,
  NOW - 7 * DAY,
  NOW - 14 * DAY,
  NOW,
];

const docArb: fc.Arbitrary<ImageDoc> = fc.record(
  {
    id: fc.nat(),
    tags: fc.subarray(VOCABULARY),
    score: fc.integer({ min: -8, max: 14 }),
    width: fc.integer({ min: -8, max: 14 }),
    faves: fc.integer({ min: 0, max: 12 }),
    aspect_ratio: fc.constantFrom(...FLOATS),
    created_at: fc
      .oneof(fc.constantFrom(...BOUNDARY_DATES), fc.integer({ min: Date.UTC(2018, 0, 1) / 1000, max: NOW / 1000 }).map((s) => s * 1000))
      .map((ms) => new Date(ms).toISOString().replace('.000Z', 'Z')),
    animated: fc.boolean(),
  },
  { requiredKeys: ['id', 'tags'] },
);

describe('evaluate(compile(tree)) agrees with the tree’s meaning', () => {
  const tree = queryTree(leafTerm, 3);

  it('through the query text', () => {
    fc.assert(
      fc.property(tree, fc.array(docArb, { minLength: 1, maxLength: 8 }), (node, docs) => {
        const query = compileQuery(print(node), { fields: imageFields, context: { now: NOW } });
        assertValidQuery(query);
        for (const doc of docs) {
          expect(evaluate(query, doc as unknown as Record<string, unknown>, imagesMapping, { now: () => NOW }), `${print(node)}\n${JSON.stringify(doc)}`).toBe(
            matches(node, doc),
          );
        }
      }),
      { numRuns: 1000 },
    );
  }, 300_000);

  it('straight from the tree', () => {
    fc.assert(
      fc.property(tree, docArb, (node, doc) => {
        const query = compile({ input: '', root: node }, { fields: imageFields, context: { now: NOW } });
        assertValidQuery(query);
        expect(evaluate(query, doc as unknown as Record<string, unknown>, imagesMapping)).toBe(matches(node, doc));
      }),
      { numRuns: 1000 },
    );
  }, 300_000);
});
