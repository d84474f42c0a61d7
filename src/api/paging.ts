/**
 * `page` and `per_page` (reference §5.2), read by their schemas (schemas/params.ts): both like
 * `Integer.parse` (a numeric prefix); `page` missing, empty or invalid is 1 and at least 1;
 * `per_page` missing or invalid is the route's default (25) and clamped to 1..50.
 *
 * Past the last page, Postgres-backed lists answer an empty page with the true `total` (the
 * reference's Scrivener lists clamp to the last page instead). We chose the empty page on purpose:
 * it is what the search lists do, and clients that page "until a short page" (gallery-dl,
 * DerPyBooru) would otherwise loop forever on a full last page.
 */

export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 50;
/** Keeps offsets far inside PostgreSQL's bigint and JavaScript's safe integers. */
export const MAX_PAGE = 1_000_000_000;

export interface Paging {
  page: number;
  perPage: number;
  /** Rows to skip: (page − 1) · perPage. */
  offset: number;
}

/** `page` and `per_page` as their schemas read them; `per_page` is undefined when absent or invalid. */
export interface PageParams {
  page: number;
  per_page?: number | undefined;
}

/** The window of a page; without a valid `per_page`, `defaultPerPage` (clamped like one). */
export function toPaging({ page, per_page }: PageParams, defaultPerPage = DEFAULT_PER_PAGE): Paging {
  const perPage = per_page ?? Math.min(Math.max(defaultPerPage, 1), MAX_PER_PAGE);
  return { page, perPage, offset: (page - 1) * perPage };
}
