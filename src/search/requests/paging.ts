/** Page window of a search: `from`/`size` for page `page` (from 1) of `perPage` hits. */
export interface Page {
  page: number;
  perPage: number;
}

export function pageWindow({ page, perPage }: Page): { from: number; size: number } {
  return { from: (page - 1) * perPage, size: perPage };
}
