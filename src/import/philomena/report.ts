/**
 * What an import run tells its operator: a progress line per table on stderr (rows, rate, ETA),
 * each skipped row with its table, id and reason (the first few of each reason), and the counts
 * of the summary.
 */

export interface TableTally {
  read: number;
  staged: number;
  inserted: number;
  updated: number;
  unchanged: number;
  deleted: number;
  /** Reason → rows skipped for it. */
  skipped: Record<string, number>;
  /** Reason → rows whose optional reference was cleared. */
  adjusted: Record<string, number>;
  /** Ids staged to find removed rows (live incremental runs). */
  keys?: number;
}

export const emptyTally = (): TableTally => ({ read: 0, staged: 0, inserted: 0, updated: 0, unchanged: 0, deleted: 0, skipped: {}, adjusted: {} });

/** Rows skipped for the same reason that are named one by one before only being counted. */
const NAMED_PER_REASON = 5;

export interface Reporter {
  /** Progress of reading a table; `total` is an estimate or undefined. */
  progress(table: string, done: number, total: number | undefined, final?: boolean): void;
  skipped(table: string, id: string, reason: string): void;
  note(message: string): void;
}

/** Group a detailed reason ("image_format \"bmp\" is not one of …") under its field. */
export function reasonKey(reason: string): string {
  return reason.replace(/"[^"]*"|: .*$/g, '…');
}

export function stderrReporter(stream: NodeJS.WriteStream = process.stderr): Reporter {
  const started = new Map<string, number>();
  const lastDraw = new Map<string, number>();
  const named = new Map<string, number>();
  const tty = stream.isTTY === true;
  return {
    progress(table, done, total, final = false) {
      const now = Date.now();
      if (!started.has(table)) started.set(table, now);
      if (!final && now - (lastDraw.get(table) ?? 0) < (tty ? 200 : 5000)) return;
      lastDraw.set(table, now);
      const seconds = Math.max(0.001, (now - started.get(table)!) / 1000);
      const rate = done / seconds;
      const pct = total ? ` ${Math.min(100, Math.floor((done / total) * 100))}%` : '';
      const eta = total && rate > 0 && done < total && !final ? ` ETA ${Math.ceil((total - done) / rate)}s` : '';
      const line = `${table.padEnd(20)} ${done.toLocaleString('en')} rows${pct} ${Math.round(rate).toLocaleString('en')} rows/s${eta}${final ? ` (${seconds.toFixed(1)}s)` : ''}`;
      stream.write(tty ? `\r${line}\x1b[K${final ? '\n' : ''}` : `${line}\n`);
    },
    skipped(table, id, reason) {
      const key = `${table}|${reasonKey(reason)}`;
      const n = (named.get(key) ?? 0) + 1;
      named.set(key, n);
      if (n <= NAMED_PER_REASON) stream.write(`${tty ? '\r\x1b[K' : ''}skipped ${table} ${id}: ${reason}\n`);
      else if (n === NAMED_PER_REASON + 1) stream.write(`${tty ? '\r\x1b[K' : ''}skipped ${table}: more rows for the same reason (counted in the summary)\n`);
    },
    note(message) {
      stream.write(`${tty ? '\r\x1b[K' : ''}${message}\n`);
    },
  };
}

export const silentReporter: Reporter = { progress() {}, skipped() {}, note() {} };

/** The end-of-run summary, one line a table and the reasons rows were skipped. */
export function formatSummary(tallies: ReadonlyMap<string, TableTally>): string {
  const lines: string[] = [];
  for (const [table, t] of tallies) {
    const skipped = Object.values(t.skipped).reduce((a, b) => a + b, 0);
    lines.push(`  ${table}: ${t.read} read, ${t.inserted} inserted, ${t.updated} updated, ${t.unchanged} unchanged, ${t.deleted} removed, ${skipped} skipped`);
    for (const [reason, n] of Object.entries(t.skipped)) lines.push(`    skipped ${n}: ${reason}`);
    for (const [reason, n] of Object.entries(t.adjusted)) lines.push(`    kept ${n} without ${reason}`);
  }
  return lines.join('\n');
}
