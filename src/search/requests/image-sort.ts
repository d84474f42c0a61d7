import type { Query, SortClause } from '../../../grammar/index.js';

export type SortDirection = 'asc' | 'desc';

/** Fields `sf` may name directly; each sorts by itself, then by id in the same direction. */
export const IMAGE_SORT_FIELDS = [
  'id', 'created_at', 'updated_at', 'first_seen_at', 'aspect_ratio', 'faves', 'downvotes', 'upvotes', 'width',
  'height', 'score', 'comment_count', 'tag_count', 'wilson_score', 'pixels', 'size', 'duration', 'hides',
] as const;

export interface ImageSort {
  sort: SortClause[];
  /** Set for random orders: the query must be wrapped so the score is the random value. */
  randomSeed?: number;
  /** The seed was drawn for this one request (a bare `random`), not given by the caller. */
  seedDrawn?: boolean;
}

/** `sd`: `asc` or `desc`; anything else is `desc`. */
export function parseSortDirection(sd: unknown): SortDirection {
  return sd === 'asc' ? 'asc' : 'desc';
}

/** Leading integer of a string, like Elixir's Integer.parse (`"12abc"` → 12), else undefined. */
function leadingInt(text: string): number | undefined {
  const m = /^[+-]?\d+/.exec(text);
  return m ? Number(m[0]) : undefined;
}

/**
 * The sort of an image search from `sf` and `sd` (reference §6.1). Two deliberate departures:
 * `created_at` sorts by `created_at` (the reference falls back to `first_seen_at`), and an
 * unparsable `gallery_id:` falls back to the default order instead of no order at all.
 * `randomSeed` picks the seed of a bare `random`, so callers and tests control it.
 */
export function parseImageSort(sf: unknown, sd: unknown, randomSeed: () => number = defaultSeed): ImageSort {
  const dir = parseSortDirection(sd);
  const field = typeof sf === 'string' ? sf : '';
  if (field === 'id') return { sort: [{ id: dir }] };
  if ((IMAGE_SORT_FIELDS as readonly string[]).includes(field)) return { sort: [{ [field]: dir }, { id: dir }] };
  if (field === '_score') return { sort: [{ _score: dir }, { id: dir }] };
  if (field === 'random' || field.startsWith('random:')) {
    const seed = field.startsWith('random:') ? leadingInt(field.slice(7)) : undefined;
    if (seed !== undefined) return { sort: [{ _score: dir }, { id: dir }], randomSeed: seed };
    return { sort: [{ _score: dir }, { id: dir }], randomSeed: randomSeed(), seedDrawn: true };
  }
  if (field.startsWith('gallery_id:')) {
    const gallery = leadingInt(field.slice(11));
    if (gallery !== undefined && gallery >= 0 && gallery <= 2_147_483_647) {
      return {
        sort: [
          { 'galleries.position': { order: dir, nested: { path: 'galleries', filter: { term: { 'galleries.id': gallery } } } } },
          { id: 'desc' },
        ],
      };
    }
  }
  return { sort: [{ first_seen_at: dir }, { id: dir }] };
}

function defaultSeed(): number {
  return 1 + Math.floor(Math.random() * 4_294_967_295);
}

/** Score every hit of `query` by a seeded random value of its id, for random orders. */
export function randomScore(query: Query, seed: number): Query {
  return { function_score: { query, functions: [{ random_score: { seed, field: 'id' } }], boost_mode: 'replace' } };
}
