/**
 * The fixed query mix: each query as a small tree rendered both as search-language text (what a
 * client sends to `/search/images`) and as the SQL condition that answers the same question on
 * the GIN-indexed `bench_images` table. Tags are picked from the board itself (popular ones,
 * mid-frequency ones), deterministically, so the same board always gets the same mix.
 */
import type { Sql } from 'postgres';
import { mulberry32 } from '../../src/lib/random.js';

export type Clause =
  | { t: 'tag'; id: number; name: string }
  | { t: 'and'; of: Clause[] }
  | { t: 'or'; of: Clause[] }
  | { t: 'not'; of: Clause }
  | { t: 'gte'; field: 'score'; value: number }
  | { t: 'wildcard'; pattern: string };

export interface MixQuery {
  kind: string;
  clause: Clause;
  /** `sf` parameter (undefined: the default order, first_seen_at desc). */
  sf?: string;
  /** Page of 25, from 1. */
  page: number;
  /** The query text. */
  q: string;
}

export const PER_PAGE = 25;

export interface Tag {
  id: number;
  name: string;
  count: number;
}

/** The search-language text of a clause. */
export function text(c: Clause): string {
  switch (c.t) {
    case 'tag':
      return c.name;
    case 'and':
      return c.of.map((x) => (x.t === 'or' ? `(${text(x)})` : text(x))).join(', ');
    case 'or':
      return c.of.map((x) => (x.t === 'and' ? `(${text(x)})` : text(x))).join(' OR ');
    case 'not':
      return c.of.t === 'tag' || c.of.t === 'wildcard' ? `-${text(c.of)}` : `-(${text(c.of)})`;
    case 'gte':
      return `${c.field}.gte:${c.value}`;
    case 'wildcard':
      return c.pattern;
  }
}

const intArray = (ids: number[]) => `'{${ids.join(',')}}'::int[]`;
const likePattern = (wildcard: string) => wildcard.replace(/[\\%_]/g, (m) => `\\${m}`).replaceAll('*', '%').replaceAll('?', '_');

/** The SQL condition on `bench_images` of a clause. */
export function condition(c: Clause): string {
  switch (c.t) {
    case 'tag':
      return `tag_ids @> ${intArray([c.id])}`;
    case 'and':
      if (c.of.every((x) => x.t === 'tag')) return `tag_ids @> ${intArray(c.of.map((x) => (x as { id: number }).id))}`;
      return c.of.map((x) => `(${condition(x)})`).join(' and ');
    case 'or':
      if (c.of.every((x) => x.t === 'tag')) return `tag_ids && ${intArray(c.of.map((x) => (x as { id: number }).id))}`;
      return c.of.map((x) => `(${condition(x)})`).join(' or ');
    case 'not':
      return `not (${condition(c.of)})`;
    case 'gte':
      return `${c.field} >= ${c.value}`;
    case 'wildcard':
      // Every image carrying a tag whose name (or alias name) matches, one GIN lookup per such
      // tag. The shorter `tag_ids && (select array_agg(id) from tags where name like …)` is
      // pathological when the pattern matches many tags (art* matches ~30,000 artist tags): GIN
      // checks every key for every candidate row, and a count did not finish within 60 s on
      // 100,000 images, while this form takes about a second there.
      return (
        `id in (select b.id from tags t join bench_images b on b.tag_ids @> array[coalesce(t.aliased_tag_id, t.id)] ` +
        `where t.name like '${likePattern(c.pattern).replaceAll("'", "''")}')`
      );
  }
}

/** The order of a query, as SQL. */
export function sqlOrder(sf: string | undefined): string {
  if (sf === undefined) return 'first_seen_at desc, id desc';
  if (sf === 'score') return 'score desc, id desc';
  const random = /^random:(\d+)$/.exec(sf);
  if (random) return `md5(id::text || '${random[1]}') desc, id desc`;
  throw new Error(`no SQL order for sf=${sf}`);
}

/** What the baseline matches: visible images, without the hidden tags, that satisfy the query. */
function baselineWhere(m: MixQuery, hiddenTagIds: number[]): string {
  return [
    'approved',
    'not hidden_from_users',
    ...(hiddenTagIds.length > 0 ? [`not (tag_ids && ${intArray(hiddenTagIds)})`] : []),
    `(${condition(m.clause)})`,
  ].join(' and ');
}

/**
 * The whole baseline statement: the exact total and the page, in one round trip. Postgres plans
 * each subquery on its own (the count from the GIN bitmap, the page by whichever index suits).
 */
export function baselineSql(m: MixQuery, hiddenTagIds: number[]): string {
  const where = baselineWhere(m, hiddenTagIds);
  return (
    `select (select count(*)::int from bench_images where ${where}) as total, ` +
    `array(select id from bench_images where ${where} order by ${sqlOrder(m.sf)} limit ${PER_PAGE} offset ${(m.page - 1) * PER_PAGE}) as ids`
  );
}

/** Every matching id (untimed; to check random pages against the engine's own random function). */
export function allMatchesSql(m: MixQuery, hiddenTagIds: number[]): string {
  const where = baselineWhere(m, hiddenTagIds);
  return `select coalesce(array_agg(id), '{}') as ids from bench_images where ${where}`;
}

export interface MixInput {
  images: number;
  hiddenTagIds: number[];
  /** Variants of each kind (the mix cycles through them). */
  variants: number;
}

export interface Mix {
  kinds: string[];
  queries: MixQuery[];
  scoreThreshold: number;
  scoreShare: number;
  popular: Tag[];
  mid: Tag[];
}

/**
 * Pick the mix from the board. Tags are those without an alias target whose names need no quoting
 * in the language (letters, digits, spaces), minus the ones the Default filter hides.
 */
export async function buildMix(sql: Sql, input: MixInput): Promise<Mix> {
  const { images, hiddenTagIds, variants } = input;
  const tags = await sql.unsafe<{ id: number; name: string; count: number }[]>(
    `select id, name, images_count as count from tags
     where aliased_tag_id is null and name ~ '^[a-z][a-z0-9 ]*$' and not (id = any($1::int[]))
     order by images_count desc, id`,
    [hiddenTagIds as never],
  );
  const popular = tags.slice(0, variants);
  // mid-frequency: on 0.05 %–1 % of the images
  const midAll = tags.filter((t) => t.count >= images / 2000 && t.count <= images / 100);
  const random = mulberry32(0x5eed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const sample = <T>(xs: readonly T[], k: number): T[] => {
    const copy = [...xs];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy.slice(0, k);
  };
  const mid = sample(midAll, variants).sort((a, b) => b.count - a.count);
  if (popular.length < variants || mid.length < variants) throw new Error('the board has too few tags for the mix');

  // score threshold: the smallest positive one that at most 5 % of the images reach
  const dist = await sql.unsafe<{ score: number; n: number }[]>(
    'select score, count(*)::int as n from bench_images group by score order by score desc',
  );
  let reached = 0;
  let scoreThreshold = 1;
  let scoreShare = 0;
  for (const { score, n } of dist) {
    if (score < 1) break;
    if ((reached + n) / images > 0.05) break;
    reached += n;
    scoreThreshold = score;
    scoreShare = reached / images;
  }

  const tag = (t: Tag): Clause => ({ t: 'tag', id: t.id, name: t.name });
  const distinct = (k: number, from: Tag[]) => sample(from, k);
  const words = [...popular, ...mid].map((t) => t.name.replace(/ /g, ''));
  const prefixes = ['art*', ...sample(words.filter((w) => w.length >= 4), variants - 1).map((w) => `${w.slice(0, 3)}*`)];
  const infixes = ['*ony*', ...sample(words.filter((w) => w.length >= 5), variants - 1).map((w) => `*${w.slice(1, 4)}*`)];

  const kinds: Array<[string, (i: number) => Omit<MixQuery, 'kind' | 'q'>]> = [
    ['one tag, popular', (i) => ({ clause: tag(popular[i]!), page: 1 })],
    ['one tag, mid-frequency', (i) => ({ clause: tag(mid[i]!), page: 1 })],
    ['three tags AND', () => ({ clause: { t: 'and', of: distinct(3, popular).map(tag) }, page: 1 })],
    ['OR of three', (i) => ({ clause: { t: 'or', of: [tag(popular[i]!), ...distinct(2, mid).map(tag)] }, page: 1 })],
    [
      'negation (a, -b)',
      () => {
        const [a, b] = distinct(2, popular);
        return { clause: { t: 'and', of: [tag(a!), { t: 'not', of: tag(b!) }] }, page: 1 };
      },
    ],
    [
      `tag + score.gte:${scoreThreshold}`,
      (i) => ({ clause: { t: 'and', of: [tag(popular[i]!), { t: 'gte', field: 'score', value: scoreThreshold }] }, page: 1 }),
    ],
    ['wildcard prefix (art*)', (i) => ({ clause: { t: 'wildcard', pattern: prefixes[i]! }, page: 1 })],
    ['wildcard infix (*ony*)', (i) => ({ clause: { t: 'wildcard', pattern: infixes[i]! }, page: 1 })],
    ['sorted by score', (i) => ({ clause: tag(popular[i]!), sf: 'score', page: 1 })],
    ['random order', (i) => ({ clause: tag(pick(popular)), sf: `random:${1000 + i * 7919}`, page: 1 })],
    ['deep page 200', (i) => ({ clause: tag(popular[i]!), page: 200 })],
  ];
  const queries: MixQuery[] = [];
  for (const [kind, make] of kinds) {
    for (let i = 0; i < variants; i++) {
      const part = make(i);
      queries.push({ kind, ...part, q: text(part.clause) });
    }
  }
  return { kinds: kinds.map(([k]) => k), queries, scoreThreshold, scoreShare, popular, mid };
}
