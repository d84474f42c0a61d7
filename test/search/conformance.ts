/**
 * A conformance suite for any `SearchEngine`: on a generated corpus of image-like documents it
 * runs every query kind and every sort, and compares the engine's ids and totals with brute force
 * (`evaluate()` on each document, then a reference sort with OpenSearch's rules).
 *
 *   runEngineConformance('embedded', async () => new EmbeddedEngine());
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Query, type SortClause, evaluate } from '../../grammar/index.js';
import type { IndexDocument, SearchEngine, SearchRequest } from '../../src/search/engine.js';
import type { IndexMapping } from '../../src/search/mapping.js';
import { mulberry32 } from '../../src/lib/random.js';

/** A small mapping shaped like the images index (reference §2.2), plus an object field. */
export const conformanceMapping: IndexMapping = {
  dynamic: false,
  properties: {
    id: { type: 'integer' },
    score: { type: 'integer' },
    upvotes: { type: 'integer' },
    width: { type: 'integer' },
    comment_count: { type: 'integer' },
    aspect_ratio: { type: 'float' },
    duration: { type: 'float' },
    created_at: { type: 'date' },
    first_seen_at: { type: 'date' },
    animated: { type: 'boolean' },
    processed: { type: 'boolean' },
    tag_ids: { type: 'keyword' },
    tags: { type: 'keyword' },
    uploader: { type: 'keyword' },
    uploader_id: { type: 'keyword' },
    favourited_by_user_ids: { type: 'keyword' },
    mime_type: { type: 'keyword' },
    file_name: { type: 'keyword' },
    sha512_hash: { type: 'keyword' },
    ip: { type: 'ip' },
    description: { type: 'text', analyzer: 'snowball' },
    galleries: { type: 'nested', properties: { id: { type: 'integer' }, position: { type: 'integer' } } },
    image: { type: 'object', properties: { tag_ids: { type: 'keyword' }, hidden_from_users: { type: 'boolean' } } },
  },
};

// ------------------------------------------------------------------ corpus

export const TAG_NAMES = [
  'safe', 'solo', 'pony', 'cute', 'smiling', 'artist:foo', 'artist:bar', 'artist:baz qux', 'oc:sunny', 'oc:sunshine',
  'species:pegasus', 'species:unicorn', 'twilight sparkle', 'rainbow dash', 'fluttershy', 'apple jack', 'rarity',
  'pinkie pie', 'suggestive', 'explicit', 'grimdark', 'semi-grimdark', 'open mouth', 'eyes closed', 'wings',
  'horn', 'hat', 'glasses', 'sky', 'cloud', 'night', 'tree', 'grass', 'water', 'beach', 'comic', 'sketch',
  'traditional art', 'digital art', 'absurd res', 'high res', 'animated', 'gif', 'webm', 'vector', 'edit',
  'meme', 'duo', 'trio', 'group',
];
const WORDS = [
  'the', 'quick', 'brown', 'fox', 'jumps', 'over', 'lazy', 'dog', 'pony', 'ponies', 'running', 'runs', 'happy',
  'happily', 'under', 'a', 'starry', 'sky', 'with', 'friends', 'friend', 'drawing', 'drawn', 'by', 'artist', 'and',
  'cake', 'cakes', 'party', 'of', 'rainbow', 'colors', 'coloring', 'is', 'not', 'night',
];
const NOW = Date.now();
const DAY = 86_400_000;

/** Deterministic image-like documents with ids 1..n (some fields missing or null on purpose). */
export function makeCorpus(n: number, seed = 42): IndexDocument[] {
  const r = mulberry32(seed);
  const int = (k: number) => Math.floor(r() * k);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const docs: IndexDocument[] = [];
  // hashes draw from their own sequence, so the other fields stay what they were
  const hashRandom = mulberry32(seed + 1);
  for (let id = 1; id <= n; id++) {
    const tagCount = 1 + int(8);
    const tagIds = new Set<number>();
    while (tagIds.size < tagCount) tagIds.add(Math.floor(Math.pow(r(), 2) * TAG_NAMES.length));
    const ids = [...tagIds];
    const width = 100 + int(3000);
    const height = 100 + int(3000);
    const animated = r() < 0.2;
    const created = NOW - int(4000) * DAY - int(DAY);
    const anonymous = r() < 0.25;
    const doc: IndexDocument = {
      id,
      score: int(200) - 50,
      upvotes: int(150),
      width,
      comment_count: int(5),
      aspect_ratio: width / height,
      created_at: r() < 0.1 ? created : new Date(created).toISOString(),
      first_seen_at: new Date(created + int(3600_000)).toISOString(),
      animated,
      processed: r() < 0.9,
      tag_ids: ids,
      tags: ids.map((t) => TAG_NAMES[t]!),
      uploader: anonymous ? null : `user${int(40)}`,
      uploader_id: anonymous ? null : int(40),
      favourited_by_user_ids: Array.from({ length: int(4) }, () => int(30)),
      mime_type: animated ? pick(['image/gif', 'video/webm']) : pick(['image/png', 'image/jpeg', 'image/svg+xml']),
      file_name: `${pick(['Img', 'pic', 'DSC', 'Screenshot'])}_${int(500)}.${pick(['png', 'JPG', 'gif'])}`,
      ip: r() < 0.7 ? `10.${int(4)}.${int(256)}.${int(256)}` : `2001:db8::${int(65536).toString(16)}`,
    };
    if (animated) doc.duration = Math.round(r() * 600) / 10;
    // a content hash, as the images index has; a few images share one or hold another shape
    const hash = Array.from({ length: 16 }, () => Math.floor(hashRandom() * 0x100000000).toString(16).padStart(8, '0')).join('');
    if (id % 97 === 3) doc.sha512_hash = docs[docs.length - 1]!.sha512_hash ?? hash;
    else if (id % 37 === 5) doc.sha512_hash = ['PENDING', 'not-a-hash', hash.toUpperCase()][id % 3];
    else if (id % 53 !== 7) doc.sha512_hash = hash;
    if (r() < 0.7) {
      const words = Array.from({ length: 3 + int(10) }, () => pick(WORDS));
      doc.description = words.join(' ');
    } else if (r() < 0.3) doc.description = '';
    if (r() < 0.3) {
      const galleries = new Set<number>();
      for (let g = 1 + int(3); g > 0; g--) galleries.add(1 + int(12));
      doc.galleries = [...galleries].map((g) => ({ id: g, position: int(60) }));
    }
    if (r() < 0.5) doc.image = { tag_ids: ids.slice(0, 2), hidden_from_users: r() < 0.2 };
    docs.push(doc);
  }
  return docs;
}

// ------------------------------------------------------------------ reference

const INT_FIELDS = new Set(['id', 'score', 'upvotes', 'width', 'comment_count']);
const FLOAT_FIELDS = new Set(['aspect_ratio', 'duration']);
const DATE_FIELDS = new Set(['created_at', 'first_seen_at']);

function values(doc: IndexDocument, field: string): unknown[] {
  const v = doc[field];
  if (v === null || v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).filter((x) => x !== null && x !== undefined);
}

/** The sort value OpenSearch uses for a document (min for asc, max for desc), or undefined. */
function sortValue(doc: IndexDocument, field: string, desc: boolean): number | string | undefined {
  let xs: (number | string)[];
  if (INT_FIELDS.has(field)) xs = values(doc, field).map((v) => Math.trunc(Number(v)));
  else if (FLOAT_FIELDS.has(field)) xs = values(doc, field).map((v) => Math.fround(Number(v)));
  else if (DATE_FIELDS.has(field)) xs = values(doc, field).map((v) => (typeof v === 'number' ? v : Date.parse(String(v))));
  else if (field === 'animated' || field === 'processed') xs = values(doc, field).map((v) => (v === true || v === 'true' ? 1 : 0));
  else xs = values(doc, field).map((v) => String(v));
  if (xs.length === 0) return undefined;
  return xs.reduce((a, b) => ((desc ? b > a : b < a) ? b : a));
}

interface RefClause {
  key: (doc: IndexDocument) => number | string | undefined;
  desc: boolean;
  missingFirst: boolean;
}

function refClauses(sort: SortClause[], scoreOf: (doc: IndexDocument) => number): RefClause[] {
  return sort.map((c) => {
    const [field, spec] = typeof c === 'string' ? [c, undefined] : (Object.entries(c)[0] as [string, unknown]);
    const o = typeof spec === 'string' ? { order: spec } : ((spec ?? {}) as Record<string, unknown>);
    const desc = o.order === undefined ? field === '_score' : o.order === 'desc';
    const missingFirst = o.missing === '_first';
    if (field === '_score') return { key: scoreOf, desc, missingFirst };
    if (o.nested) {
      const nested = o.nested as { path: string; filter?: { term: Record<string, number> } };
      const gid = nested.filter ? Object.values(nested.filter.term)[0] : undefined;
      const sub = field.slice(nested.path.length + 1) as 'position' | 'id';
      return {
        key: (doc) => {
          const gs = ((doc.galleries ?? []) as { id: number; position: number }[]).filter((g) => gid === undefined || g.id === gid);
          if (gs.length === 0) return undefined;
          const xs = gs.map((g) => g[sub]);
          return desc ? Math.max(...xs) : Math.min(...xs);
        },
        desc,
        missingFirst,
      };
    }
    return { key: (doc) => sortValue(doc, field, desc), desc, missingFirst };
  });
}

/** Brute-force answer: documents matching by `evaluate`, sorted by the reference rules. */
export function bruteForce(docs: IndexDocument[], request: SearchRequest, scoreOf: (doc: IndexDocument) => number = () => 1): number[] {
  const hits = docs.filter((d) => evaluate(request.query, d, conformanceMapping));
  const clauses = refClauses(request.sort ?? ['_score'], scoreOf);
  const keyed = hits.map((d) => ({ d, keys: clauses.map((c) => c.key(d)) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < clauses.length; i++) {
      const c = clauses[i]!;
      const x = a.keys[i];
      const y = b.keys[i];
      if (x === undefined && y === undefined) continue;
      if (x === undefined) return c.missingFirst ? -1 : 1;
      if (y === undefined) return c.missingFirst ? 1 : -1;
      if (x < y) return c.desc ? 1 : -1;
      if (x > y) return c.desc ? -1 : 1;
    }
    return 0;
  });
  return keyed.map((k) => k.d.id);
}

// ------------------------------------------------------------------ query catalogue

const q = (x: unknown) => x as Query;
const iso = (t: number) => new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** One query per kind and per field type, in the shapes the compiler and the endpoints emit. */
export function queryCatalogue(docs: IndexDocument[]): [string, Query][] {
  const sample = docs[7]!;
  const someDate = Date.parse(String(docs[3]!.first_seen_at));
  return [
    ['match_all', q({ match_all: {} })],
    ['match_none', q({ match_none: {} })],
    ['term keyword', q({ term: { tags: 'safe' } })],
    ['term keyword with spaces', q({ term: { tags: 'artist:baz qux' } })],
    ['term keyword long form', q({ term: { tags: { value: 'pony', boost: 2 } } })],
    ['term keyword case_insensitive', q({ term: { file_name: { value: String(docs[11]!.file_name).toUpperCase(), case_insensitive: true } } })],
    ['term keyword numeric value', q({ term: { tag_ids: 3 } })],
    ['term keyword numeric string', q({ term: { tag_ids: '3' } })],
    ['term keyword null-able', q({ term: { uploader: 'user7' } })],
    ['term integer', q({ term: { score: sample.score as number } })],
    ['term integer as string', q({ term: { comment_count: '2' } })],
    ['term integer fractional', q({ term: { score: 1.5 } })],
    ['term float', q({ term: { aspect_ratio: sample.aspect_ratio as number } })],
    ['term date', q({ term: { first_seen_at: docs[3]!.first_seen_at } })],
    ['term date by day', q({ term: { first_seen_at: iso(someDate).slice(0, 10) } })],
    ['term boolean string', q({ term: { animated: 'true' } })],
    ['term boolean false', q({ term: { processed: false } })],
    ['term ip', q({ term: { ip: docs[5]!.ip } })],
    ['term ip cidr v4', q({ term: { ip: '10.1.0.0/16' } })],
    ['term ip cidr v6', q({ term: { ip: '2001:db8::/112' } })],
    ['term ip v4 mapped', q({ term: { ip: `::ffff:${String(docs.find((d) => !String(d.ip).includes(':'))!.ip)}` } })],
    ['term text token', q({ term: { description: 'fox' } })],
    ['term text token (stemmed form)', q({ term: { description: 'poni' } })],
    ['term object field', q({ term: { 'image.tag_ids': 2 } })],
    ['term object boolean', q({ term: { 'image.hidden_from_users': true } })],
    ['term unmapped', q({ term: { nonexistent: 'x' } })],
    ['term nested field outside nested', q({ term: { 'galleries.id': 3 } })],
    ['terms keyword numbers', q({ terms: { tag_ids: [1, 4, 9, 33] } })],
    ['terms keyword strings', q({ terms: { tags: ['solo', 'duo', 'nothing such'] } })],
    ['terms integer', q({ terms: { comment_count: [0, 3] } })],
    ['terms empty', q({ terms: { tag_ids: [] } })],
    ['terms with boost', q({ terms: { favourited_by_user_ids: [1, 2], boost: 2 } })],
    ['range integer', q({ range: { score: { gte: 10, lt: 60 } } })],
    ['range integer fractional bounds', q({ range: { score: { gt: 9.5, lte: 20.5 } } })],
    ['range float', q({ range: { aspect_ratio: { gte: 0.75, lte: 1.5 } } })],
    ['range float missing values', q({ range: { duration: { gt: 10 } } })],
    ['range date iso', q({ range: { first_seen_at: { gte: iso(someDate - 300 * DAY), lt: iso(someDate) } } })],
    ['range date day rounding', q({ range: { created_at: { lte: iso(someDate).slice(0, 10), gt: iso(someDate - 900 * DAY).slice(0, 10) } } })],
    ['range date math', q({ range: { created_at: { gte: 'now-1000d/d' } } })],
    ['range date epoch millis', q({ range: { created_at: { lt: someDate } } })],
    ['range from/to', q({ range: { width: { from: 500, to: 1500, include_lower: false, include_upper: false } } })],
    ['range keyword', q({ range: { tags: { gte: 'h', lt: 'r' } } })],
    ['range ip', q({ range: { ip: { gte: '10.1.0.0', lt: '10.2.0.0' } } })],
    ['exists numeric', q({ exists: { field: 'duration' } })],
    ['exists keyword with nulls', q({ exists: { field: 'uploader' } })],
    ['exists keyword empty arrays', q({ exists: { field: 'favourited_by_user_ids' } })],
    ['exists text with empty strings', q({ exists: { field: 'description' } })],
    ['exists object', q({ exists: { field: 'image' } })],
    ['exists unmapped', q({ exists: { field: 'nothing' } })],
    ['ids', q({ ids: { values: [1, '5', 17, 99999, 'x'] } })],
    ['term hash', q({ term: { sha512_hash: docs[7]!.sha512_hash } })],
    ['term hash held by two', q({ term: { sha512_hash: docs[2]!.sha512_hash } })],
    ['term hash of another shape', q({ term: { sha512_hash: 'not-a-hash' } })],
    ['term hash case_insensitive', q({ term: { sha512_hash: { value: String(docs[8]!.sha512_hash).toUpperCase(), case_insensitive: true } } })],
    ['terms hashes', q({ terms: { sha512_hash: [docs[7]!.sha512_hash, docs[20]!.sha512_hash, 'PENDING', 'f'.repeat(128)] } })],
    ['prefix hash', q({ prefix: { sha512_hash: String(docs[7]!.sha512_hash).slice(0, 2) } })],
    ['wildcard hash infix', q({ wildcard: { sha512_hash: `*${String(docs[9]!.sha512_hash).slice(40, 43)}*` } })],
    ['wildcard hash case_insensitive', q({ wildcard: { sha512_hash: { value: `${String(docs[9]!.sha512_hash).slice(0, 2).toUpperCase()}*`, case_insensitive: true } } })],
    ['fuzzy hash', q({ fuzzy: { sha512_hash: { value: `x${String(docs[7]!.sha512_hash).slice(1)}`, fuzziness: 1 } } })],
    ['range hash', q({ range: { sha512_hash: { gte: 'a', lt: 'c' } } })],
    ['exists hash', q({ exists: { field: 'sha512_hash' } })],
    ['wildcard prefix', q({ wildcard: { tags: 'artist:*' } })],
    ['wildcard infix', q({ wildcard: { tags: '*sh*' } })],
    ['wildcard question mark', q({ wildcard: { tags: 'tr?o' } })],
    ['wildcard long form', q({ wildcard: { file_name: { value: 'img*', case_insensitive: true } } })],
    ['wildcard on text', q({ wildcard: { description: 'pon*' } })],
    ['wildcard on numbers-as-keywords', q({ wildcard: { tag_ids: '1*' } })],
    ['prefix', q({ prefix: { tags: 'oc:sun' } })],
    ['fuzzy 1', q({ fuzzy: { tags: { value: 'solp', fuzziness: 1 } } })],
    ['fuzzy 2 with prefix', q({ fuzzy: { tags: { value: 'pinkie pxe', fuzziness: 2, prefix_length: 2 } } })],
    ['fuzzy auto', q({ fuzzy: { tags: { value: 'rarty' } } })],
    ['fuzzy fraction (no edit on OpenSearch 2.x)', q({ fuzzy: { tags: { value: 'fluttersky', fuzziness: 0.8 } } })],
    ['fuzzy on text', q({ fuzzy: { description: { value: 'ponys', fuzziness: 2 } } })],
    ['match text', q({ match: { description: 'happy ponies' } })],
    ['match and', q({ match: { description: { query: 'happy running pony', operator: 'and' } } })],
    ['match minimum_should_match', q({ match: { description: { query: 'quick brown lazy fox', minimum_should_match: 3 } } })],
    ['match stop words only', q({ match: { description: 'the and of' } })],
    ['match on keyword', q({ match: { tags: 'safe' } })],
    ['match_phrase', q({ match_phrase: { description: 'lazy dog' } })],
    ['match_phrase stemmed', q({ match_phrase: { description: 'ponies running' } })],
    ['match_phrase over stop word', q({ match_phrase: { description: 'fox the dog' } })],
    ['match_phrase slop', q({ match_phrase: { description: { query: 'quick fox', slop: 2 } } })],
    ['match_phrase on keyword', q({ match_phrase: { tags: 'twilight sparkle' } })],
    ['nested term', q({ nested: { path: 'galleries', query: { term: { 'galleries.id': 3 } } } })],
    ['nested bool same object', q({ nested: { path: 'galleries', query: { bool: { must: [{ term: { 'galleries.id': 3 } }, { range: { 'galleries.position': { lt: 20 } } }] } } } })],
    ['bool must', q({ bool: { must: [{ term: { tags: 'safe' } }, { term: { tags: 'solo' } }] } })],
    ['bool must object', q({ bool: { must: { term: { tags: 'safe' } } } })],
    ['bool filter + must_not object', q({ bool: { filter: [{ range: { score: { gte: 0 } } }], must_not: { term: { tags: 'explicit' } } } })],
    ['bool should', q({ bool: { should: [{ term: { tags: 'explicit' } }, { term: { tags: 'grimdark' } }, { term: { uploader: 'user3' } }] } })],
    ['bool should optional with must', q({ bool: { must: [{ term: { tags: 'safe' } }], should: [{ term: { tags: 'solo' } }] } })],
    ['bool minimum_should_match 2', q({ bool: { should: [{ term: { tags: 'safe' } }, { term: { tags: 'solo' } }, { term: { tags: 'pony' } }], minimum_should_match: 2 } })],
    ['bool minimum_should_match percent', q({ bool: { should: [{ term: { tags: 'safe' } }, { term: { tags: 'solo' } }, { term: { tags: 'pony' } }, { term: { animated: true } }], minimum_should_match: '50%' } })],
    ['bool minimum_should_match 0 with only should', q({ bool: { should: [{ term: { tags: 'cute' } }], must_not: { term: { tags: 'safe' } }, minimum_should_match: -1 } })],
    ['bool minimum_should_match 1 with no should', q({ bool: { must: { term: { tags: 'solo' } }, minimum_should_match: 1 } })],
    ['bool minimum_should_match 1 with only must_not', q({ bool: { must_not: { term: { tags: 'solo' } }, minimum_should_match: 1 } })],
    ['bool minimum_should_match negative', q({ bool: { must: { term: { processed: true } }, should: [{ term: { tags: 'cute' } }, { term: { tags: 'hat' } }], minimum_should_match: -1 } })],
    ['bool only must_not', q({ bool: { must_not: [{ term: { tags: 'safe' } }, { range: { width: { lt: 1000 } } }] } })],
    ['bool empty', q({ bool: {} })],
    ['bool nested bools', q({ bool: { must: [{ bool: { should: [{ term: { tags: 'safe' } }, { bool: { must_not: { exists: { field: 'uploader' } } } }] } }], must_not: { bool: { must: [{ term: { animated: true } }, { range: { duration: { gt: 30 } } }] } } } })],
    ['constant_score', q({ constant_score: { filter: { term: { tags: 'sky' } }, boost: 2 } })],
    ['function_score with boost', q({ function_score: { query: { term: { tags: 'sky' } }, boost: 3 } })],
    ['function_score without query', q({ function_score: { random_score: { seed: 3, field: 'id' }, boost_mode: 'replace' } })],
    ['dis_max', q({ dis_max: { queries: [{ term: { tags: 'sky' } }, { term: { tags: 'night' } }] } })],
    [
      'images endpoint shape',
      q({
        bool: {
          must: { bool: { must: [{ term: { tags: 'safe' } }, { range: { created_at: { gte: 'now-3000d' } } }] } },
          must_not: [
            { term: { processed: false } },
            { term: { 'image.hidden_from_users': true } },
            { bool: { should: [{ terms: { tag_ids: [19, 20] } }, { bool: { should: [{ wildcard: { tags: 'artist:b*' } }, { match_none: {} }] } }] } },
          ],
        },
      }),
    ],
  ];
}

// ------------------------------------------------------------------ random DSL trees

const leafArb = (docs: IndexDocument[]): fc.Arbitrary<Query> => {
  const tag = fc.constantFrom(...TAG_NAMES);
  const word = fc.constantFrom(...WORDS);
  const sample = fc.integer({ min: 0, max: docs.length - 1 }).map((i) => docs[i]!);
  return fc.oneof(
    tag.map((t) => q({ term: { tags: t } })),
    fc.integer({ min: 0, max: TAG_NAMES.length }).map((t) => q({ term: { tag_ids: t } })),
    fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 4 }).map((ts) => q({ terms: { tag_ids: ts } })),
    fc.record({ gte: fc.integer({ min: -60, max: 160 }), span: fc.integer({ min: 0, max: 120 }) }).map(({ gte, span }) => q({ range: { score: { gte, lt: gte + span } } })),
    fc.double({ min: 0.05, max: 10, noNaN: true }).map((x) => q({ range: { aspect_ratio: { lte: x } } })),
    sample.map((d) => q({ range: { first_seen_at: { gte: d.first_seen_at } } })),
    fc.boolean().map((b) => q({ term: { animated: b } })),
    fc.constantFrom('uploader', 'duration', 'description', 'image', 'favourited_by_user_ids').map((f) => q({ exists: { field: f } })),
    fc.constantFrom('a*', '*e', 's?lo', '*ar*', 'oc:*', '?').map((p) => q({ wildcard: { tags: p } })),
    fc.tuple(word, word).map(([a, b]) => q({ match_phrase: { description: `${a} ${b}` } })),
    word.map((w) => q({ match: { description: w } })),
    fc.integer({ min: 1, max: 12 }).map((g) => q({ nested: { path: 'galleries', query: { term: { 'galleries.id': g } } } })),
    fc.constantFrom('10.1.0.0/16', '10.0.0.0/8', '2001:db8::/120').map((c) => q({ term: { ip: c } })),
    tag.map((t) => q({ fuzzy: { tags: { value: t.slice(1), fuzziness: 1 } } })),
    fc.constant(q({ match_all: {} })),
  );
};

export const dslTreeArb = (docs: IndexDocument[]): fc.Arbitrary<Query> => {
  const leaf = leafArb(docs);
  const { tree } = fc.letrec<{ tree: Query; bool: Query }>((tie) => ({
    tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, leaf, tie('bool')),
    bool: fc
      .record(
        {
          must: fc.array(tie('tree'), { maxLength: 3 }),
          filter: fc.array(tie('tree'), { maxLength: 2 }),
          should: fc.array(tie('tree'), { maxLength: 3 }),
          must_not: fc.oneof(tie('tree'), fc.array(tie('tree'), { maxLength: 2 })),
          minimum_should_match: fc.constantFrom(0, 1, 2, -1, '50%'),
        },
        { requiredKeys: [] },
      )
      .map((b) => q({ bool: b })),
  }));
  return tree;
};

// ------------------------------------------------------------------ the suite

async function writeAll(engine: SearchEngine, index: string, docs: IndexDocument[]): Promise<void> {
  // out of id order, in batches, as an indexer would
  const order = [...docs].sort((a, b) => ((a.id * 7919) % 1009) - ((b.id * 7919) % 1009) || a.id - b.id);
  for (let i = 0; i < order.length; i += 500) await engine.write(index, order.slice(i, i + 500));
}

export function runEngineConformance(name: string, makeEngine: () => Promise<SearchEngine>, corpusSize = 3000): void {
  describe(`${name}: conformance with the evaluator`, () => {
    const docs = makeCorpus(corpusSize);
    const index = 'conformance_images';
    let engine: SearchEngine;
    const all = async (request: SearchRequest) => engine.search(index, { ...request, from: 0, size: docs.length + 10 });

    beforeAll(async () => {
      engine = await makeEngine();
      await engine.ensureIndex({ name: index, mapping: conformanceMapping });
      await writeAll(engine, index, docs);
    });

    it('counts every document', async () => {
      expect(await engine.count(index)).toBe(docs.length);
    });

    describe('every query kind matches what evaluate() says', () => {
      for (const [label, query] of queryCatalogue(docs)) {
        it(label, async () => {
          const request: SearchRequest = { query, sort: [{ id: 'asc' }] };
          const expected = bruteForce(docs, request);
          const got = await all(request);
          expect(got.total).toBe(expected.length);
          expect(got.ids).toEqual(expected);
        });
      }
    });

    it('a CIDR block on an IPv4-mapped IPv6 address is an error (v4 or v6 prefix?)', async () => {
      await expect(engine.search(index, { query: q({ term: { ip: '::ffff:10.2.0.0/112' } }) })).rejects.toThrow(/IP|CIDR/);
    });

    it('a query kind it does not know is an error naming the kind', async () => {
      await expect(engine.search(index, { query: q({ percolate: { field: 'x' } }) })).rejects.toThrow(/percolate/);
    });

    describe('sorts', () => {
      const sorts: [string, SortClause[]][] = [
        ['integer desc, id desc', [{ score: 'desc' }, { id: 'desc' }]],
        ['integer asc, id asc', [{ score: 'asc' }, { id: 'asc' }]],
        ['float asc', [{ aspect_ratio: 'asc' }, { id: 'desc' }]],
        ['float with missing values desc', [{ duration: 'desc' }, { id: 'asc' }]],
        ['float with missing values asc', [{ duration: { order: 'asc' } }, { id: 'asc' }]],
        ['missing first', [{ duration: { order: 'desc', missing: '_first' } }, { id: 'asc' }]],
        ['date desc (default image order)', [{ first_seen_at: 'desc' }, { id: 'desc' }]],
        ['date with epoch-millis values', [{ created_at: 'asc' }, { id: 'asc' }]],
        ['keyword multi-valued asc (min)', [{ tags: 'asc' }, { id: 'asc' }]],
        ['keyword multi-valued desc (max)', [{ tags: 'desc' }, { id: 'asc' }]],
        ['keyword with nulls', [{ uploader: 'asc' }, { id: 'desc' }]],
        ['hash asc', [{ sha512_hash: 'asc' }, { id: 'asc' }]],
        ['hash desc', [{ sha512_hash: 'desc' }, { id: 'asc' }]],
        ['boolean then integer', [{ animated: 'desc' }, { comment_count: 'asc' }, { id: 'asc' }]],
        ['id only', [{ id: 'desc' }]],
        ['string shorthand', ['width', { id: 'asc' }] as SortClause[]],
      ];
      for (const [label, sort] of sorts) {
        it(label, async () => {
          const query = q({ bool: { must_not: { term: { tags: 'explicit' } } } });
          const expected = bruteForce(docs, { query, sort });
          const got = await all({ query, sort });
          expect(got.ids).toEqual(expected);
          // the first pages are the same slices
          for (const [from, size] of [[0, 15], [15, 15], [100, 50]] as const) {
            const page = await engine.search(index, { query, sort, from, size });
            expect(page.ids).toEqual(expected.slice(from, from + size));
            expect(page.total).toBe(expected.length);
          }
        });
      }

      it('a sparse result sorted by a column', async () => {
        const query = q({ term: { tags: 'grimdark' } });
        const sort: SortClause[] = [{ width: 'desc' }, { id: 'desc' }];
        const expected = bruteForce(docs, { query, sort });
        expect((await engine.search(index, { query, sort, size: 10 })).ids).toEqual(expected.slice(0, 10));
      });

      it('nested gallery position, in the gallery asked for', async () => {
        for (const gallery of [3, 7]) {
          for (const order of ['asc', 'desc'] as const) {
            const query = q({ nested: { path: 'galleries', query: { term: { 'galleries.id': gallery } } } });
            const sort = [
              { 'galleries.position': { order, nested: { path: 'galleries', filter: { term: { 'galleries.id': gallery } } } } },
              { id: 'desc' },
            ] as SortClause[];
            const expected = bruteForce(docs, { query, sort });
            expect(expected.length).toBeGreaterThan(10);
            expect((await all({ query, sort })).ids).toEqual(expected);
            expect((await engine.search(index, { query, sort, from: 5, size: 5 })).ids).toEqual(expected.slice(5, 10));
          }
        }
      });

      it('_score with function_score boosts and bool sums', async () => {
        const cs = (term: Record<string, unknown>, boost?: number) =>
          boost === undefined ? { constant_score: { filter: { term } } } : { function_score: { query: { constant_score: { filter: { term } } }, boost } };
        const query = q({
          bool: {
            should: [cs({ tags: 'safe' }), cs({ tags: 'solo' }, 3), cs({ tags: 'pony' }, 2), cs({ animated: true }, 5)],
            must_not: { term: { tags: 'explicit' } },
          },
        });
        const has = (d: IndexDocument, tag: string) => (d.tags as string[]).includes(tag);
        const scoreOf = (d: IndexDocument) => (has(d, 'safe') ? 1 : 0) + (has(d, 'solo') ? 3 : 0) + (has(d, 'pony') ? 2 : 0) + (d.animated ? 5 : 0);
        for (const order of ['desc', 'asc'] as const) {
          const sort: SortClause[] = [{ _score: order }, { id: 'desc' }];
          const expected = bruteForce(docs, { query, sort }, scoreOf);
          expect((await all({ query, sort })).ids).toEqual(expected);
          expect((await engine.search(index, { query, sort, from: 20, size: 20 })).ids).toEqual(expected.slice(20, 40));
        }
      });

      it('random order: a permutation of the hits, stable across pages, changing with the seed', async () => {
        const random = (seed: number) =>
          q({
            function_score: { query: { term: { tags: 'safe' } }, random_score: { seed, field: 'id' }, boost_mode: 'replace' },
          });
        const sort: SortClause[] = [{ _score: 'desc' }, { id: 'desc' }];
        const expectedSet = bruteForce(docs, { query: q({ term: { tags: 'safe' } }), sort: [{ id: 'asc' }] });
        const full = await all({ query: random(12345), sort });
        expect([...full.ids].sort((a, b) => a - b)).toEqual(expectedSet);
        const pages: number[] = [];
        for (let from = 0; from < full.total; from += 37) {
          pages.push(...(await engine.search(index, { query: random(12345), sort, from, size: 37 })).ids);
        }
        expect(pages).toEqual(full.ids);
        const other = await all({ query: random(54321), sort });
        expect(other.ids).not.toEqual(full.ids);
        expect((await all({ query: random(12345), sort })).ids).toEqual(full.ids);
      });

      it('paging past the end, sizes of zero, exact totals', async () => {
        const query = q({ term: { tags: 'solo' } });
        const sort: SortClause[] = [{ id: 'asc' }];
        const expected = bruteForce(docs, { query, sort });
        const last = await engine.search(index, { query, sort, from: expected.length - 3, size: 10 });
        expect(last.ids).toEqual(expected.slice(-3));
        const past = await engine.search(index, { query, sort, from: expected.length + 5, size: 10 });
        expect(past).toEqual({ ids: [], total: expected.length });
        const none = await engine.search(index, { query, sort, from: 0, size: 0 });
        expect(none).toEqual({ ids: [], total: expected.length });
        const deep = await engine.search(index, { query: q({ match_all: {} }), sort: [{ first_seen_at: 'desc' }, { id: 'desc' }], from: docs.length - 20, size: 50 });
        expect(deep.ids).toEqual(bruteForce(docs, { query: q({ match_all: {} }), sort: [{ first_seen_at: 'desc' }, { id: 'desc' }] }).slice(-20));
        expect(deep.total).toBe(docs.length);
      });
    });

    it('random DSL trees agree with evaluate()', async () => {
      await fc.assert(
        fc.asyncProperty(dslTreeArb(docs), async (query) => {
          const sort: SortClause[] = [{ score: 'desc' }, { id: 'asc' }];
          const expected = bruteForce(docs, { query, sort });
          const got = await all({ query, sort });
          expect(got.total).toBe(expected.length);
          expect(got.ids).toEqual(expected);
        }),
        { numRuns: 150, seed: 20240601 },
      );
    });
  });
}
