/**
 * Where Philomena rows come from: a live database or a pg_dump archive. Both hand over the same
 * thing, the chosen columns of one table as COPY text lines, so one mapper serves both (and a
 * line whose values need no mapping can be staged as it is).
 */

/** Which rows of a table to read; only a live database can narrow a read. */
export interface RowFilter {
  /** Rows whose `updated_at` is at or after this source-clock time (`YYYY-MM-DD HH:MM:SS…`). */
  updatedSince?: string;
  /** Rows whose `image_id` is an image changed at or after this time. */
  imagesChangedSince?: string;
}

export interface TableLines {
  /** The columns chosen, in field order. */
  columns: string[];
  /**
   * The rows as COPY text lines without their newline, in batches: exactly the chosen columns, in
   * order, tab-separated, `\N` for null, backslash escapes inside values (`decodeCopyLine`).
   */
  lines: AsyncIterable<string[]>;
}

export interface PhilomenaSource {
  /** Shown in progress and summaries. */
  readonly label: string;
  /** Whether `read` honours filters (a dump is always read whole). */
  readonly filters: boolean;
  /** Every table of the source with its columns. */
  tables(): Promise<Map<string, string[]>>;
  /** The applied schema migration versions, when the source records them. */
  migrations(): Promise<string[]>;
  /** Rows a table holds, roughly (for progress ETAs), when the source can tell cheaply. */
  estimate(table: string): Promise<number | undefined>;
  /** The time of the snapshot read, on the source's clock (a live database), for the next incremental run. */
  snapshotTime(): Promise<string | null>;
  /**
   * Stream a table: `pick` receives the columns the table has and returns those to read (never a
   * column it did not name).
   */
  read(table: string, pick: (available: readonly string[]) => string[], filter?: RowFilter): Promise<TableLines>;
  close(): Promise<void>;
}
