/**
 * Reverse image search: the images that look like a given picture, closest first.
 *
 * Three kinds of match, merged in this order:
 * 1. the identical file: an image whose `sha512_hash` or `orig_sha512_hash` is the picture's;
 * 2. perceptual matches: images whose fingerprint (src/media/fingerprint.ts) lies within
 *    `hammingThreshold(distance)` bits of the picture's, or whose region hashes or mirrored or
 *    rotated hashes lie within `turnedThreshold(distance)` bits, closest first, found by the
 *    search engine without scanning every image (`SearchEngine.searchHashes`, `hashesOf`);
 * 3. the reference's intensity matches (reference §7: the four corner intensities each within
 *    3·distance and the aspect ratio within distance, closest first, in PostgreSQL), so every image
 *    the reference finds is still found, after the closer perceptual matches.
 * Every kind is searched through `visible`, the caller's filter and visibility as a query, inside
 * the engine: a hidden image is never returned and never takes the place of a visible one.
 *
 * Parameters, as the reference reads them:
 * - `distance`: "0" is prefixed to the raw text and the leading float taken (`.3` → 0.3, `abc` → 0,
 *   `-0.5` → 0); absent or empty → 0.25. Values above 1 are clamped to 1 (the reference refuses
 *   them with an empty answer; we keep a usable search instead).
 * - `limit`: an integer 1..50 (Ecto's cast: the whole text must be an integer). Absent → no limit
 *   on `total`, at most 50 entries (the reference's page size). Anything else (`999`, `0`, `abc`)
 *   is invalid, which the endpoint answers with an empty result, as the reference does.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import type { AnalyzeOptions } from '../../media/analyze.js';
import { MediaError } from '../../media/errors.js';
import type { Query } from '../../../grammar/index.js';
import type { QueryHashes } from '../../media/fingerprint.js';
import { requestDecodes } from '../../media/sandbox/decodes.js';
import type { Intensities } from '../../media/intensities.js';
import type { HashSearchRequest, SearchEngine } from '../../search/engine.js';

export const DEFAULT_DISTANCE = 0.25;
export const MAX_LIMIT = 50;
/** Entries per answer when no `limit` is given (the reference's page size). */
export const PAGE_SIZE = 50;

const LEADING_FLOAT = /^[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/;

/**
 * `distance`: the raw text prefixed with "0", then Elixir's `Float.parse` (leading digits, an
 * optional fraction and exponent, any suffix ignored); absent or empty → 0.25; clamped to 0..1.
 */
export function parseDistance(raw: unknown): number {
  if (raw === undefined || raw === null || raw === '') return DEFAULT_DISTANCE;
  const m = LEADING_FLOAT.exec(`0${String(raw)}`);
  const value = m ? Number(m[0]) : 0;
  if (!Number.isFinite(value)) return 1;
  return Math.min(1, Math.max(0, value));
}

/**
 * `limit`: undefined when absent or empty (no limit), the integer when the whole text is one in
 * 1..50, else null (invalid: the search answers nothing).
 */
export function parseLimit(raw: unknown): number | null | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const text = String(raw);
  if (!/^[+-]?\d{1,10}$/.test(text)) return null;
  const n = Number(text);
  return n >= 1 && n <= MAX_LIMIT ? n : null;
}

export interface SimilarImages {
  /** Closest first. */
  ids: number[];
  /** Matches counted as the reference counts them: capped by `limit` when one is given. */
  total: number;
}

/** What a search needs of the picture asked about. */
export interface SearchKey {
  intensities: Intensities;
  aspectRatio: number;
  /** Its hashes and those of its mirror images and rotations. */
  query: QueryHashes;
  /** Of the bytes as given. */
  sha512: string;
}

/**
 * `distance` (0..1) as the largest Hamming distance of a perceptual match, of 64 bits: 0.25 (the
 * default) allows 10, which keeps a copy rescaled, recompressed, brightened, watermarked or
 * trimmed by a few percent of its border while unrelated pictures stay out (bench/reverse.ts
 * measures both; at 12, one distractor in fifty found something); 1 allows 40, nearly anything,
 * as the reference's 1 does.
 */
export function hammingThreshold(distance: number): number {
  return Math.round(Math.min(1, Math.max(0, distance)) * 40);
}

/**
 * `distance` as the largest Hamming distance of a match through a mirrored or rotated hash or a
 * region hash: half `hammingThreshold`, 5 at the default. Those comparisons are 22 per stored
 * image instead of 2, each a chance for an unrelated picture to come near, while a mirrored,
 * quarter-turned or cut copy of a bench picture lands within 2 bits of its variant. Of the
 * bench's 200 distractors against its 1,000 pictures (bench/reverse.ts), 2 come within 6 bits
 * that way (one at 4, found: 0.5 %) and none within 10 bits of `phash`/`chash`; on 150 pictures
 * a threshold of 10 let 4 % of the distractors find something.
 */
export function turnedThreshold(distance: number): number {
  return Math.round(hammingThreshold(distance) / 2);
}

/**
 * What `searchHashes` is asked for a picture: its own whole-frame and centre hashes against
 * `phash` and `chash` at `hammingThreshold`, then, at `turnedThreshold`, its whole-frame hashes
 * (itself and turned) against the region hashes `rhash`, and its turned hashes against `phash`
 * and `chash` (a symmetric picture's repeated variants asked once).
 */
export function hashesOf(query: QueryHashes, distance: number): HashSearchRequest['hashes'] {
  const near = hammingThreshold(distance);
  const turned = turnedThreshold(distance);
  const [whole, ...wholeTurned] = query.whole;
  const [centre, ...centreTurned] = query.centre;
  const hashes: HashSearchRequest['hashes'] = [
    { field: 'phash', value: whole as string, maxDistance: near },
    { field: 'chash', value: centre as string, maxDistance: near },
  ];
  const asked = new Set(hashes.map((h) => `${h.field}:${h.value}`));
  const ask = (field: string, value: string) => {
    if (asked.has(`${field}:${value}`)) return;
    asked.add(`${field}:${value}`);
    hashes.push({ field, value, maxDistance: turned });
  };
  for (const value of query.whole) ask('rhash', value);
  for (const value of wholeTurned) ask('phash', value);
  for (const value of centreTurned) ask('chash', value);
  return hashes;
}

/** At most this many intensity matches are considered (the closest); the reference has no cap. */
export const INTENSITY_CANDIDATES = 10_000;
const INDEX = 'images';
/** Ids per engine request when intensity matches are passed through the filter. */
const ID_BATCH = 1024;

/** The reference's method: ids of the intensity matches, closest first (at most `cap`). */
export async function intensityMatches(db: Database, key: Pick<SearchKey, 'intensities' | 'aspectRatio'>, distance: number, cap = INTENSITY_CANDIDATES): Promise<number[]> {
  const { nw, ne, sw, se } = key.intensities;
  const d = distance;
  const corner = 3 * d;
  const rows = await db.execute<{ id: number }>(sql`
    select i.id
    from image_intensities x
    join images i on i.id = x.image_id
    where x.nw between ${nw - corner} and ${nw + corner}
      and x.ne between ${ne - corner} and ${ne + corner}
      and x.sw between ${sw - corner} and ${sw + corner}
      and x.se between ${se - corner} and ${se + corner}
      and i.image_aspect_ratio between ${key.aspectRatio - d} and ${key.aspectRatio + d}
    order by (x.nw - ${nw})^2 + (x.ne - ${ne})^2 + (x.sw - ${sw})^2 + (x.se - ${se})^2 + (i.image_aspect_ratio - ${key.aspectRatio})^2, i.id
    limit ${cap}`);
  return rows.map((r) => Number(r.id));
}

export interface ReverseQuery {
  key: SearchKey;
  distance: number;
  /** undefined: no limit (at most `PAGE_SIZE` entries, every match counted). */
  limit?: number | undefined;
  /** The images the caller may see (src/search/requests: `visibleImages`). */
  visible: Query;
}

/** The ids among `ids` that `visible` lets through, in the order given. */
async function visibleAmong(engine: SearchEngine, visible: Query, ids: number[]): Promise<number[]> {
  const passed = new Set<number>();
  for (let k = 0; k < ids.length; k += ID_BATCH) {
    const batch = ids.slice(k, k + ID_BATCH);
    const found = await engine.search(INDEX, { query: { bool: { filter: [visible, { terms: { id: batch } }] } }, size: batch.length });
    for (const id of found.ids) passed.add(id);
  }
  return ids.filter((id) => passed.has(id));
}

/**
 * Perceptual hits closest first, those at one Hamming distance by the closeness of their corner
 * intensities to the picture's: pictures of a few flat areas (four flat quadrants) share their
 * hash with every picture of the same layout and light-dark order, whatever the colours.
 */
async function closestFirst(db: Database, intensities: Intensities, hits: { id: number; distance: number }[]): Promise<number[]> {
  if (hits.length < 2) return hits.map((h) => h.id);
  const { nw, ne, sw, se } = intensities;
  const rows = await db.execute<{ id: number; d: number }>(sql`
    select image_id as id, (nw - ${nw})^2 + (ne - ${ne})^2 + (sw - ${sw})^2 + (se - ${se})^2 as d
    from image_intensities where image_id in (${sql.join(hits.map((h) => sql`${h.id}`), sql`, `)})`);
  const apart = new Map(rows.map((r) => [Number(r.id), Number(r.d)]));
  const far = Number.POSITIVE_INFINITY;
  return [...hits].sort((a, b) => a.distance - b.distance || (apart.get(a.id) ?? far) - (apart.get(b.id) ?? far) || a.id - b.id).map((h) => h.id);
}

/** See the module comment. */
export async function reverseSearch(deps: { db: Database; engine: SearchEngine }, q: ReverseQuery): Promise<SimilarImages> {
  const { db, engine } = deps;
  const take = Math.min(q.limit ?? PAGE_SIZE, PAGE_SIZE);
  const { key } = q;
  const hashes = hashesOf(key.query, q.distance);
  const maxDistance = hammingThreshold(q.distance);
  const sameFile: Query = { bool: { should: [{ term: { sha512_hash: key.sha512 } }, { term: { orig_sha512_hash: key.sha512 } }] } };
  const [exact, near, byIntensity] = await Promise.all([
    engine.search(INDEX, { query: { bool: { filter: [q.visible, sameFile] } }, sort: [{ id: 'asc' }], size: PAGE_SIZE }),
    engine.searchHashes(INDEX, { hashes, maxDistance, filter: q.visible, size: PAGE_SIZE * 2 }),
    intensityMatches(db, key, q.distance).then((ids) => visibleAmong(engine, q.visible, ids)),
  ]);

  // Which of the exact and intensity matches are perceptual matches too (maybe past the page):
  // each image is counted once.
  const perceptual = new Set(near.hits.map((h) => h.id));
  const others = [...new Set([...exact.ids, ...byIntensity])].filter((id) => !perceptual.has(id));
  if (others.length > 0 && near.total > near.hits.length) {
    const alsoNear = await engine.searchHashes(INDEX, { hashes, maxDistance, filter: { bool: { filter: [q.visible, { terms: { id: others } }] } }, size: others.length });
    for (const h of alsoNear.hits) perceptual.add(h.id);
  }

  const ordered = new Set<number>(exact.ids);
  for (const id of await closestFirst(db, key.intensities, near.hits)) ordered.add(id);
  for (const id of byIntensity) ordered.add(id);
  const total = near.total + others.filter((id) => !perceptual.has(id)).length;
  return { ids: [...ordered].slice(0, take), total: q.limit === undefined ? total : Math.min(q.limit, total) };
}

/**
 * What a search needs of an uploaded file: its corner intensities and fingerprint (png/jpeg
 * directly, gif and webm the frame at half the duration, svg its rendering at a bounded size),
 * aspect ratio and hash, worked out in the requests' sandbox (a child process killed past its
 * deadline or memory, or when `signal` aborts). Null when the file cannot be analysed or costs
 * more than the sandbox allows (the reference then answers an empty result).
 */
export async function searchKeyOf(bytes: Buffer, options: AnalyzeOptions = {}, signal?: AbortSignal): Promise<SearchKey | null> {
  try {
    return await requestDecodes.run('search-key', bytes, options, signal);
  } catch (error) {
    if (error instanceof MediaError) return null;
    throw error;
  }
}
