/**
 * A number for each filter row object, for the keys of what is kept per filter (anonymous
 * engine requests, whole answers): an edited filter is a new row (`src/caches/filter-row-cache.ts`), and
 * so a new number. 0 stands for no filter.
 */
import type { FilterRow } from './types.js';

const filterRowNumbers = new WeakMap<FilterRow, number>();
let lastFilterRowNumber = 0;

export function filterRowNumber(filter: FilterRow | null): number {
  if (filter === null) return 0;
  let n = filterRowNumbers.get(filter);
  if (n === undefined) {
    n = ++lastFilterRowNumber;
    filterRowNumbers.set(filter, n);
  }
  return n;
}
