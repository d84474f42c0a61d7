/**
 * Dates at the ends of the range a date query may name (years 0000–9999): every date field of
 * every index answers 200 with what the bound means for the board's documents, never a 500 from
 * an engine that cannot read a bound beyond year 9999.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexDefinitions, indexNames } from '../../src/search/indexes/index.js';
import { buildBoard } from './fixtures.js';
import { qs, startSearchHarness, type SearchHarness } from './harness.js';

let h: SearchHarness;

beforeAll(async () => {
  h = await startSearchHarness();
  await buildBoard(h.db);
  await h.reindex();
});

afterAll(async () => {
  await h?.close();
});

/** Each query, and whether it selects every document (`all`) or none (`none`). */
const QUERIES: [string, 'all' | 'none'][] = [
  [':9999', 'none'],
  [':9999-12', 'none'],
  [':9999-12-31T23:59:59-23:59', 'none'],
  [':9999-12-31T23:59:59+23:59', 'none'],
  ['.lte:9999-12-31', 'all'],
  ['.lte:9999-12-31T23:59:59-23:59', 'all'],
  ['.lt:9999-12-31T23:59:59-23:59', 'all'],
  ['.gt:9999-12', 'none'],
  ['.gte:9999-12-31T23:59:59-23:59', 'none'],
  ['.gte:0000', 'all'],
  ['.gte:0000-01-01T00:00:00+23:59', 'all'],
  ['.gt:0000-01-01T00:00:00+23:59', 'all'],
  [':0000-01-01T00:00:00+23:59', 'none'],
  ['.lt:0000-01-01T00:00:00+23:59', 'none'],
  ['.lte:0000-01-01T00:00:00+23:59', 'none'],
];

const dateFields = indexNames.flatMap((index) =>
  indexDefinitions[index].fields.fields.filter((f) => f.type === 'date').map((f) => [index, f.name] as const),
);

describe('date bounds at the ends of the range', () => {
  it('covers every date field of every index', () => {
    expect(dateFields.length).toBeGreaterThanOrEqual(9);
  });

  it.each(dateFields)('%s %s', async (index, field) => {
    const everything = await h.ok(`/search/${index}${qs({ q: '*', per_page: 50 })}`);
    expect(everything.total).toBeGreaterThan(0);
    for (const [suffix, expected] of QUERIES) {
      const q = `${field}${suffix}`;
      const res = await h.api(`/search/${index}${qs({ q, per_page: 50 })}`);
      expect(res.status, `${index} ${q}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.total, `${index} ${q}`).toBe(expected === 'all' ? everything.total : 0);
    }
  });

  it('logged no error', () => {
    expect(h.logged.filter((l) => l.level === 'error')).toEqual([]);
  });
});
