/**
 * Reverse image search (reference §7): images whose four corner intensities are each within
 * 3·distance of the query's and whose aspect ratio is within distance, closest first. No filter,
 * hidden or approval exclusions apply.
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
import { analyzeImage, type AnalyzeOptions } from '../../media/analyze.js';
import { decodeQueue } from '../../media/decode-budget.js';
import { MediaError } from '../../media/errors.js';
import { computeIntensities, type Intensities } from '../../media/intensities.js';

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

export interface SimilarQuery {
  intensities: Intensities;
  aspectRatio: number;
  distance: number;
  /** undefined: no limit (at most `PAGE_SIZE` entries, every match counted). */
  limit?: number | undefined;
}

export async function findSimilarImages(db: Database, query: SimilarQuery): Promise<SimilarImages> {
  const { nw, ne, sw, se } = query.intensities;
  const d = query.distance;
  const corner = 3 * d;
  const take = Math.min(query.limit ?? PAGE_SIZE, PAGE_SIZE);
  const rows = await db.execute<{ id: number; total: number }>(sql`
    select i.id, count(*) over ()::int as total
    from image_intensities x
    join images i on i.id = x.image_id
    where x.nw between ${nw - corner} and ${nw + corner}
      and x.ne between ${ne - corner} and ${ne + corner}
      and x.sw between ${sw - corner} and ${sw + corner}
      and x.se between ${se - corner} and ${se + corner}
      and i.image_aspect_ratio between ${query.aspectRatio - d} and ${query.aspectRatio + d}
    order by (x.nw - ${nw})^2 + (x.ne - ${ne})^2 + (x.sw - ${sw})^2 + (x.se - ${se})^2 + (i.image_aspect_ratio - ${query.aspectRatio})^2, i.id
    limit ${take}`);
  const matches = rows[0]?.total ?? 0;
  return { ids: rows.map((r) => Number(r.id)), total: query.limit === undefined ? matches : Math.min(query.limit, matches) };
}

/**
 * What a search needs of an uploaded file: its corner intensities (png/jpeg directly, gif and webm
 * the frame at half the duration, svg its rendering) and aspect ratio. Null when the file cannot
 * be analysed (the reference then answers an empty result).
 */
export async function searchKeyOf(bytes: Buffer, options?: AnalyzeOptions): Promise<{ intensities: Intensities; aspectRatio: number } | null> {
  try {
    return await decodeQueue.run(async () => {
      const analysis = await analyzeImage(bytes, options);
      const intensities = await computeIntensities(bytes, analysis, options);
      return { intensities, aspectRatio: analysis.aspectRatio };
    });
  } catch (error) {
    if (error instanceof MediaError) return null;
    throw error;
  }
}
