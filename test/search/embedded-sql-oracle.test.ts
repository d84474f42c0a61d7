/**
 * The embedded engine against an oracle that shares no code with it. The engine's leaf semantics
 * come from the grammar's matching core (grammar/match/), which the DSL evaluator uses too, so
 * agreeing with the evaluator proves little where both read the same code. Here the expected ids
 * come from elsewhere:
 *
 * - PostgreSQL, on the same rows: each question is asked once of the engine (query text compiled
 *   by the grammar with the images fields, or DSL written here) and once as SQL written by hand
 *   from OpenSearch's documented semantics: text[] for keywords, `real` for float fields (32-bit,
 *   as OpenSearch stores them), timestamptz for dates, inet for addresses, collation "C" for term
 *   order.
 * - Ids written out by hand, for what SQL cannot say without the same reasoning as the engine:
 *   wildcard escapes and `?`, fuzzy edit distances, instants at the edges of rounded dates, IPv4
 *   addresses written as IPv6, float32 rounding of query values.
 */
import postgres, { type Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Query } from '../../grammar/index.js';
import { compileQuery } from '../../grammar/compiler.js';
import { EmbeddedEngine } from '../../src/search/embedded/index.js';
import type { IndexDocument } from '../../src/search/engine.js';
import { imageFields } from '../../src/search/indexes/images/fields.js';
import { imagesMapping } from '../../src/search/indexes/images/mapping.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

interface Row {
  id: number;
  tags: string[];
  score: number;
  aspect_ratio: number | null;
  created_at: string;
  ip: string | null;
  uploader: string;
}

const TAGS = ['safe', 'solo', 'pony', 'art', 'artwork', 'artist:foo', 'twilight sparkle', 'earth pony', 'unicorn', 'ünïcode', 'zebra'];
const RATIOS = [1, 1.1, 1.3333334, 0.5625, 1.7777778, 2.5];
const UPLOADERS = ['alice', 'alicia', 'bob', 'Alice', 'bobby', 'ali ce', 'alice2'];
const START = Date.UTC(2024, 0, 1);
const HOUR = 3_600_000;

/** Row `id` of the general table: every field spread over its range by fixed arithmetic. */
function generalRow(id: number): Row {
  // about a third of the rows hold each tag, mixed by a multiplicative hash of (row, tag)
  const tags = TAGS.filter((_, i) => (((id * 2654435761 + i * 40503) >>> 0) >>> 11) % 3 === 0);
  // every 13th row at midnight exactly, the others at odd minutes and milliseconds
  const t = id % 13 === 0 ? START + (id % 60) * 24 * HOUR : START + id * 7 * HOUR + (id % 60) * 60_000 + (id * 37) % 1000;
  let ip: string | null = null;
  if (id % 5 === 1) ip = `10.${id % 3}.${id % 256}.${(id * 7) % 256}`;
  else if (id % 5 === 2) ip = `192.168.1.${id % 256}`;
  else if (id % 5 === 3) ip = `2001:db8::${id.toString(16)}`;
  return {
    id,
    tags,
    score: ((id * 37) % 41) - 20,
    aspect_ratio: id % 11 === 0 ? null : RATIOS[id % RATIOS.length]!,
    created_at: new Date(t).toISOString(),
    ip,
    uploader: UPLOADERS[id % UPLOADERS.length]!,
  };
}

const GENERAL: Row[] = Array.from({ length: 400 }, (_, i) => generalRow(i + 1));

function document(r: Row): IndexDocument {
  const doc: IndexDocument = { id: r.id, tags: r.tags, score: r.score, created_at: r.created_at, uploader: r.uploader };
  if (r.aspect_ratio !== null) doc.aspect_ratio = r.aspect_ratio;
  if (r.ip !== null) doc.ip = r.ip;
  return doc;
}

let database: TestDatabase;
let sql: Sql;
const engine = new EmbeddedEngine();

beforeAll(async () => {
  database = await createTestDatabase();
  sql = postgres(database.url, { max: 1, onnotice: () => {} });
  await sql`create table oracle_images (
    id int primary key, tags text[] not null, score int not null, aspect_ratio real,
    created_at timestamptz not null, ip inet, uploader text not null)`;
  for (const r of GENERAL) {
    await sql`insert into oracle_images values (${r.id}, ${r.tags}, ${r.score}, ${r.aspect_ratio}, ${r.created_at}, ${r.ip}, ${r.uploader})`;
  }
  await engine.ensureIndex({ name: 'general', mapping: imagesMapping });
  await engine.write('general', GENERAL.map(document));
  await engine.ensureIndex({ name: 'edges', mapping: imagesMapping });
  await engine.write('edges', EDGES.map(document));
});

afterAll(async () => {
  await sql?.end();
  await database?.drop();
});

async function engineIds(index: string, query: Query): Promise<number[]> {
  return (await engine.search(index, { query, sort: [{ id: 'asc' }], size: 10_000 })).ids;
}

async function sqlIds(where: string): Promise<number[]> {
  const rows = await sql.unsafe<{ id: number }[]>(`select id from oracle_images where ${where} order by id`);
  return rows.map((r) => r.id);
}

const compiled = (text: string): Query => compileQuery(text, { fields: imageFields, role: 'admin', context: { userId: 1 } });
const hasTag = (tag: string) => `'${tag.replaceAll("'", "''")}' = any(tags)`;
const anyTag = (condition: string) => `exists (select 1 from unnest(tags) t where ${condition})`;

/** [what, query, SQL condition]. */
const SQL_CASES: [string, Query, string][] = [
  ['one tag', compiled('safe'), hasTag('safe')],
  ['a tag with a space and one with a namespace', compiled('twilight sparkle OR artist:foo'), `${hasTag('twilight sparkle')} or ${hasTag('artist:foo')}`],
  ['AND binds tighter than OR', compiled('safe OR solo, pony'), `${hasTag('safe')} or (${hasTag('solo')} and ${hasTag('pony')})`],
  ['negation binds tightest', compiled('safe, -solo OR pony'), `(${hasTag('safe')} and not ${hasTag('solo')}) or ${hasTag('pony')}`],
  ['negated group', compiled('!(safe || solo) && pony'), `not (${hasTag('safe')} or ${hasTag('solo')}) and ${hasTag('pony')}`],
  ['prefix wildcard', compiled('art*'), anyTag(`starts_with(t, 'art')`)],
  ['infix wildcard', compiled('*ony*'), anyTag(`strpos(t, 'ony') > 0`)],
  ['non-ASCII wildcard', compiled('ü*'), anyTag(`starts_with(t, 'ü')`)],
  ['integer range', compiled('score.gte:3, score.lt:10'), 'score >= 3 and score < 10'],
  ['negative integers', compiled('score.lte:-5'), 'score <= -5'],
  ['float range: the bound is rounded to 32 bits like the values', compiled('aspect_ratio.gt:1.1'), `aspect_ratio > real '1.1'`],
  ['float term', compiled('aspect_ratio:1.3333334'), `aspect_ratio = real '1.3333334'`],
  ['negated float range keeps rows without the field', compiled('-aspect_ratio.gt:1.1'), `not coalesce(aspect_ratio > real '1.1', false)`],
  ['a date is its whole day', compiled('created_at:2024-01-05'), `created_at >= '2024-01-05T00:00:00Z' and created_at < '2024-01-06T00:00:00Z'`],
  ['a month', compiled('created_at:2024-02'), `created_at >= '2024-02-01T00:00:00Z' and created_at < '2024-03-01T00:00:00Z'`],
  [
    'gt rounds up and lte rounds up',
    { range: { created_at: { gt: '2024-01-31', lte: '2024-02-02' } } },
    `created_at >= '2024-02-01T00:00:00Z' and created_at < '2024-02-03T00:00:00Z'`,
  ],
  [
    'gte and lt round date math down',
    { range: { created_at: { gte: '2024-01-20||/M', lt: '2024-02-10||+1d/d' } } },
    `created_at >= '2024-01-01T00:00:00Z' and created_at < '2024-02-11T00:00:00Z'`,
  ],
  [
    'a time zone moves the day',
    { range: { created_at: { gte: '2024-01-15', lt: '2024-01-16', time_zone: '+05:00' } } },
    `created_at >= '2024-01-15T00:00:00+05:00' and created_at < '2024-01-16T00:00:00+05:00'`,
  ],
  ['epoch milliseconds', { range: { created_at: { gte: Date.UTC(2024, 0, 10), lt: Date.UTC(2024, 0, 12, 6) } } }, `created_at >= '2024-01-10T00:00:00Z' and created_at < '2024-01-12T06:00:00Z'`],
  ['IPv4 CIDR', compiled('ip:10.1.0.0/16'), `ip <<= '10.1.0.0/16'`],
  ['one IPv4 address', { term: { ip: '192.168.1.42' } }, `ip = '192.168.1.42'`],
  ['IPv6 CIDR', { term: { ip: '2001:db8::/120' } }, `ip <<= '2001:db8::/120'`],
  ['IPv4 range', { range: { ip: { gte: '10.0.0.0', lt: '10.1.128.0' } } }, `family(ip) = 4 and ip >= '10.0.0.0' and ip < '10.1.128.0'`],
  [
    'minimum_should_match 2 of 3',
    { bool: { should: [{ term: { tags: 'safe' } }, { term: { tags: 'solo' } }, { term: { tags: 'pony' } }], minimum_should_match: 2 } },
    `(${hasTag('safe')})::int + (${hasTag('solo')})::int + (${hasTag('pony')})::int >= 2`,
  ],
  ['case-insensitive term', { term: { tags: { value: 'SAFE', case_insensitive: true } } }, anyTag(`lower(t) = 'safe'`)],
  ['terms', { terms: { tags: ['zebra', 'unicorn', 'no such tag'] } }, `tags && array['zebra', 'unicorn', 'no such tag']`],
  ['keyword range in code point order', { range: { tags: { gte: 'pony', lt: 'unicorn' } } }, anyTag(`t >= 'pony' collate "C" and t < 'unicorn' collate "C"`)],
  ['exists', { exists: { field: 'aspect_ratio' } }, 'aspect_ratio is not null'],
  ['must_not exists', { bool: { must_not: { exists: { field: 'ip' } } } }, 'ip is null'],
  ['filter and must_not together', { bool: { filter: [{ range: { score: { gt: 0 } } }], must_not: [{ term: { tags: 'safe' } }] } }, `score > 0 and not ${hasTag('safe')}`],
];

describe('embedded engine = PostgreSQL on the same rows', () => {
  it('the general rows cover each case with some hits and some misses', async () => {
    for (const [what, , where] of SQL_CASES) {
      const n = (await sqlIds(where)).length;
      expect(n, what).toBeGreaterThan(0);
      expect(n, what).toBeLessThan(GENERAL.length);
    }
  });

  it.each(SQL_CASES)('%s', async (_what, query, where) => {
    expect(await engineIds('general', query)).toEqual(await sqlIds(where));
  });
});

// ------------------------------------------------------------------ hand-computed cases

/** Rows at the edges: each case below lists by hand the ids it must find among them. */
function edge(id: number, fields: Partial<Row>): Row {
  return { id, tags: [], score: 0, aspect_ratio: null, created_at: '2020-01-01T00:00:00Z', ip: null, uploader: 'nobody', ...fields };
}

const EDGES: Row[] = [
  edge(1, { tags: ['a*b'], created_at: '2024-01-31T23:59:59.999Z', ip: '10.255.255.255', aspect_ratio: 1.1, uploader: 'alice' }),
  edge(2, { tags: ['a?b'], created_at: '2024-02-01T00:00:00.000Z', ip: '11.0.0.0', aspect_ratio: 1.10000001, uploader: 'alice2' }),
  edge(3, { tags: ['axb'], created_at: '2024-02-01T00:00:00.001Z', ip: '::ffff:10.0.0.1', aspect_ratio: 1.1000001, uploader: 'Alice' }),
  edge(4, { tags: ['back\\slash'], created_at: '2024-01-31T00:00:00.000Z', ip: '2001:db8::1', aspect_ratio: 1.0999999, uploader: 'ali ce' }),
  edge(5, { tags: ['ab', 'safe'], created_at: '2024-01-30T23:59:59.999Z', ip: '9.255.255.255', uploader: 'alicia' }),
  edge(6, { tags: ['a**b', 'solo', 'safe'], created_at: '2024-02-01T23:59:59.999Z', uploader: 'bob' }),
  edge(7, { tags: ['äb', 'pony', 'solo'], created_at: '2024-02-02T00:00:00.000Z', uploader: 'laice' }),
];

const HAND_CASES: [string, Query, number[]][] = [
  ['an escaped star is a literal star', { wildcard: { tags: 'a\\*b' } }, [1]],
  ['? is exactly one character', { wildcard: { tags: 'a?b' } }, [1, 2, 3]],
  ['? is one code point, not one byte', { wildcard: { tags: '?b' } }, [5, 7]],
  ['an escaped ? is a literal ?', { wildcard: { tags: 'a\\?b' } }, [2]],
  ['* is any run, also an empty one', { wildcard: { tags: 'a*b' } }, [1, 2, 3, 5, 6]],
  ['an escaped backslash', { wildcard: { tags: 'back\\\\slash' } }, [4]],
  ['gt a day: after its last millisecond', { range: { created_at: { gt: '2024-01-31' } } }, [2, 3, 6, 7]],
  ['gte a day: from its first millisecond', { range: { created_at: { gte: '2024-01-31' } } }, [1, 2, 3, 4, 6, 7]],
  ['lt a day: before its first millisecond', { range: { created_at: { lt: '2024-01-31' } } }, [5]],
  ['lte a day: up to its last millisecond', { range: { created_at: { lte: '2024-01-31' } } }, [1, 4, 5]],
  ['a day as a term', { term: { created_at: '2024-02-01' } }, [2, 3, 6]],
  ['an IPv4 block holds IPv4-mapped IPv6 addresses', { term: { ip: '10.0.0.0/8' } }, [1, 3]],
  ['a /32 is one address', { term: { ip: '10.255.255.255/32' } }, [1]],
  ['an IPv6 block', { term: { ip: '2001:db8::/64' } }, [4]],
  ['IPv4 range across a block edge', { range: { ip: { gt: '9.255.255.255', lte: '11.0.0.0' } } }, [1, 2, 3]],
  ['a float term matches what rounds to the same 32-bit float', { term: { aspect_ratio: 1.1 } }, [1, 2]],
  ['a float range above 1.1 in 32 bits', { range: { aspect_ratio: { gt: 1.1 } } }, [3]],
  ['a float range up to 1.1 in 32 bits', { range: { aspect_ratio: { lte: 1.1 } } }, [1, 2, 4]],
  // alice: itself; alice2, Alice, ali ce: one edit; alicia: two; laice: one transposition
  ['fuzzy, one edit', { fuzzy: { uploader: { value: 'alice', fuzziness: 1 } } }, [1, 2, 3, 4, 7]],
  ['fuzzy with a prefix that must match', { fuzzy: { uploader: { value: 'alice', fuzziness: 1, prefix_length: 2 } } }, [1, 2, 4]],
  ['fuzzy without transpositions', { fuzzy: { uploader: { value: 'alice', fuzziness: 1, transpositions: false } } }, [1, 2, 3, 4]],
  ['fuzzy, two edits', { fuzzy: { uploader: { value: 'alice', fuzziness: 2 } } }, [1, 2, 3, 4, 5, 7]],
  ['AUTO fuzziness: one edit for five letters', { fuzzy: { uploader: 'alicf' } }, [1]],
  ['precedence: safe OR solo, pony', compiled('safe OR solo, pony'), [5, 6, 7]],
  ['precedence: (safe OR solo), pony', compiled('(safe OR solo), pony'), [7]],
  ['precedence: safe, -solo', compiled('safe, -solo'), [5]],
  ['negation of a negation', compiled('-(-safe)'), [5, 6]],
  ['negation matches rows without the field', compiled('-aspect_ratio.gt:1.05'), [5, 6, 7]],
];

describe('embedded engine = ids computed by hand', () => {
  it.each(HAND_CASES)('%s', async (_what, query, expected) => {
    expect(await engineIds('edges', query)).toEqual(expected);
  });
});
