/**
 * `page` and `per_page` (reference §5.2): both read like `Integer.parse` (a numeric prefix);
 * `page` missing, empty or invalid is 1 and at least 1; `per_page` missing or invalid is 25 and
 * clamped to 1..50.
 *
 * Past the last page, Postgres-backed lists answer an empty page with the true `total` (the
 * reference's Scrivener lists clamp to the last page instead). We chose the empty page on purpose:
 * it is what the search lists do, and clients that page "until a short page" (gallery-dl,
 * DerPyBooru) would otherwise loop forever on a full last page.
 */
import type { AppContext } from '../context.js';
import { integerParsePrefix } from '../params.js';

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

export function parsePaging(
  params: { page?: string | undefined; per_page?: string | undefined },
  defaultPerPage = DEFAULT_PER_PAGE,
): Paging {
  const rawPage = integerParsePrefix(params.page) ?? 1;
  const page = Math.min(Math.max(rawPage, 1), MAX_PAGE);
  const rawPerPage = integerParsePrefix(params.per_page) ?? defaultPerPage;
  const perPage = Math.min(Math.max(rawPerPage, 1), MAX_PER_PAGE);
  return { page, perPage, offset: (page - 1) * perPage };
}

/** The paging of a request. */
export function paging(c: AppContext, defaultPerPage = DEFAULT_PER_PAGE): Paging {
  return parsePaging({ page: c.req.query('page'), per_page: c.req.query('per_page') }, defaultPerPage);
}
