/** The window of a listing that contexts read, and what they answer: a page of rows and the total. */

export interface PageWindow {
  perPage: number;
  /** Rows to skip. */
  offset: number;
}

export interface Page<T> {
  rows: T[];
  total: number;
}
