/**
 * Streaming rows into PostgreSQL with COPY (text format), for loads too large for INSERTs.
 */
import type { Writable } from 'node:stream';
import type { Sql } from 'postgres';

/** A value in COPY text format: `\N` for null, backslash escapes for the special characters. */
export function copyValue(value: string | number | boolean | Date | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '\\N';
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value instanceof Date) return value.toISOString();
  return value.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/** One COPY line (with its newline) from the values of a row. */
export function copyLine(values: ReadonlyArray<string | number | boolean | Date | null | undefined>): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) line += '\t';
    line += copyValue(values[i]);
  }
  return `${line}\n`;
}

const CHUNK = 1 << 16;

/**
 * Buffers lines and writes them to a COPY stream in ~64 KiB chunks, waiting when the stream asks
 * to (backpressure).
 */
export class CopyWriter {
  private buffer = '';
  private error: Error | undefined;
  private readonly waiters = new Set<(err: Error) => void>();
  rows = 0;

  constructor(private readonly stream: Writable) {
    // The server reports a failed COPY by destroying the stream; keep the error for the next call.
    stream.on('error', (err: Error) => {
      this.error = err;
      for (const w of this.waiters) w(err);
    });
  }

  /** Add a line already in COPY format (see `copyLine`); flushes when the buffer is full. */
  async line(text: string): Promise<void> {
    if (this.push(text)) await this.flush();
  }

  /** Synchronous variant for hot loops: returns true when the caller should `await flush()`. */
  push(text: string): boolean {
    this.buffer += text;
    this.rows++;
    return this.buffer.length >= CHUNK;
  }

  /** Wait for `event` on the stream, or fail with the stream's error. */
  private wait(event: 'drain' | 'finish'): Promise<void> {
    if (this.error) return Promise.reject(this.error);
    return new Promise<void>((resolve, reject) => {
      const fail = (err: Error) => {
        this.stream.off(event, done);
        this.waiters.delete(fail);
        reject(err);
      };
      const done = () => {
        this.waiters.delete(fail);
        resolve();
      };
      this.waiters.add(fail);
      this.stream.once(event, done);
    });
  }

  async flush(): Promise<void> {
    if (this.error) throw this.error;
    if (this.buffer.length === 0) return;
    const chunk = this.buffer;
    this.buffer = '';
    if (!this.stream.write(chunk)) await this.wait('drain');
  }

  /** Flush and end the COPY; resolves when the server has accepted every row. */
  async end(): Promise<void> {
    await this.flush();
    const finished = this.wait('finish');
    this.stream.end();
    await finished;
  }
}

/**
 * Open `COPY table (columns) FROM STDIN` on a connection (or transaction). With `freeze`, rows are
 * written frozen (the table must have been created or truncated in the same transaction).
 */
export async function copyInto(sql: Sql, table: string, columns: readonly string[], options: { freeze?: boolean } = {}): Promise<CopyWriter> {
  const cols = columns.map((c) => `"${c}"`).join(', ');
  const stream = await sql.unsafe(`copy "${table}" (${cols}) from stdin${options.freeze ? ' with (freeze)' : ''}`).writable();
  return new CopyWriter(stream);
}

/** COPY a list of rows (each an array of values in `columns` order) into a table. */
export async function copyRows(
  sql: Sql,
  table: string,
  columns: readonly string[],
  rows: Iterable<ReadonlyArray<string | number | boolean | Date | null | undefined>>,
  options: { freeze?: boolean } = {},
): Promise<number> {
  const writer = await copyInto(sql, table, columns, options);
  for (const row of rows) if (writer.push(copyLine(row))) await writer.flush();
  await writer.end();
  return writer.rows;
}
