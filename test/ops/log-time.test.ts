/** The log lines' `time` is exactly what `Date#toISOString` writes, at any millisecond. */
import { describe, expect, it } from 'vitest';
import { isoTimeAt, logLineTime } from '../../src/log-time.js';

const expected = (ms: number) => `,"time":"${new Date(ms).toISOString()}"`;

describe('log line time', () => {
  it('matches toISOString across milliseconds, seconds, days and years', () => {
    const starts = [0, 999, 1_000, Date.UTC(2026, 10, 26, 2, 59, 59, 990), Date.UTC(1999, 11, 31, 23, 59, 59, 995), Date.UTC(2024, 1, 29, 12, 0, 0, 5)];
    for (const start of starts) for (let ms = start; ms < start + 25; ms++) expect(isoTimeAt(ms)).toBe(expected(ms));
    // going back to an earlier second is formatted afresh too
    expect(isoTimeAt(starts[3]!)).toBe(expected(starts[3]!));
  });

  it('writes the current time', () => {
    const before = Date.now();
    const text = logLineTime();
    const after = Date.now();
    const written = Date.parse(text.slice(9, -1));
    expect(written).toBeGreaterThanOrEqual(before);
    expect(written).toBeLessThanOrEqual(after);
  });
});
