/**
 * Staging lines as they came: for every table with `direct` patterns, the rows staged from a live
 * source are the ones mapping each row gives (values with tabs, backslashes and newlines, times,
 * nulls, ids too long for the patterns), and a bad row of such a table is still skipped and
 * reported with its table and id.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sqlClientOf } from '../../src/db/client.js';
import { openLiveSource } from '../../src/import/philomena/live-source.js';
import { emptyTally, type Reporter } from '../../src/import/philomena/report.js';
import { columnsToRead, sourceTablesOf, stageTable, stagingTable } from '../../src/import/philomena/stage.js';
import { TABLES, type TableSpec } from '../../src/import/philomena/tables.js';
import { startHarness, type Harness } from '../http/harness.js';
import { createPhilomenaDatabase, type PhilomenaDatabase } from '../support/philomena/database.js';
import { fixtureRows } from '../support/philomena/rows.js';

const DIRECT = TABLES.filter((s) => s.direct !== undefined);

describe('staging lines as they came', () => {
  const rows: Record<string, any[]> = fixtureRows();
  const image = rows.images![0]!;
  const comment = rows.comments![0]!;
  rows.images!.push(
    // Mapped: an upper-case format is lower-cased, a null width becomes 0.
    { ...image, id: 900, image_format: 'PNG', image_width: null, created_at: '2024-02-29 23:59:59.123456', updated_at: '2024-03-01 00:00:00' },
    // Skipped: a format Tagwise does not have.
    { ...image, id: 901, image_format: 'bmp', image_mime_type: 'image/bmp' },
  );
  rows.comments!.push(
    { ...comment, id: 2_000_000_000, body: 'tab\there, back\\slash, new\nline, \\N as text', edited_at: null, edit_reason: null },
    { ...comment, id: 77, body: '\\N', deletion_reason: '', edited_at: '2024-01-02 03:04:05.5', edit_reason: 'typo\there' },
  );
  rows.image_sources!.push({ image_id: 3, source: 'a\tb\\c' }, { image_id: 3, source: '' });

  let h: Harness;
  let src: PhilomenaDatabase;

  beforeAll(async () => {
    h = await startHarness();
    src = await createPhilomenaDatabase('current', rows);
  });
  afterAll(async () => {
    await h?.close();
    await src?.drop();
  });

  /** Stage `spec` from the source; the staged rows in staging order and what was reported. */
  async function stage(spec: TableSpec) {
    const sql = sqlClientOf(h.db);
    const source = await openLiveSource(src.url);
    const skipped: string[] = [];
    const reporter: Reporter = { progress() {}, note() {}, skipped: (table, id, reason) => skipped.push(`${table} ${id}: ${reason}`) };
    const tally = emptyTally();
    try {
      const chosen = sourceTablesOf(spec, await source.tables());
      if ('missing' in chosen) throw new Error(chosen.missing);
      await stageTable(sql, source, spec, chosen.tables, undefined, undefined, tally, reporter);
    } finally {
      await source.close();
    }
    const staged = await sql.unsafe<Array<{ row: string }>>(`select to_jsonb(s)::text as row from ${stagingTable(spec.target)} s order by ctid`);
    return { rows: staged.map((r) => r.row), skipped, tally };
  }

  test('every table with direct patterns is read directly from the current schema', async () => {
    const source = await openLiveSource(src.url);
    try {
      const tables = await source.tables();
      for (const spec of DIRECT) {
        const chosen = sourceTablesOf(spec, tables);
        if ('missing' in chosen) throw new Error(chosen.missing);
        const table = chosen.tables[0]!.table;
        const plan = columnsToRead(spec, false, tables.get(table)!);
        expect(plan.direct?.pattern, spec.target).toBeInstanceOf(RegExp);
        // The fixture's ordinary rows are the ones read directly.
        let lines = 0;
        let direct = 0;
        for await (const batch of (await source.read(table, () => plan.read)).lines) {
          for (const line of batch) {
            lines++;
            if (plan.direct!.pattern.test(line)) direct++;
          }
        }
        if (lines > 0) expect(direct, spec.target).toBeGreaterThanOrEqual(lines - 2);
      }
    } finally {
      await source.close();
    }
    expect(DIRECT.map((s) => s.target)).toEqual(expect.arrayContaining(['images', 'image_taggings', 'image_faves', 'image_votes', 'comments']));
  });

  test.each(DIRECT.map((s) => [s.target, s] as const))('%s: the same staged rows as mapping each row', async (_target, spec) => {
    const direct = await stage(spec);
    const mapped = await stage({ ...spec, direct: undefined });
    expect(direct.rows).toEqual(mapped.rows);
    expect(direct.skipped).toEqual(mapped.skipped);
    expect(direct.tally).toEqual(mapped.tally);
    expect(direct.tally.staged).toBe(direct.rows.length);
  });

  test('bad rows of directly read tables are reported with table and id; odd values stay whole', async () => {
    const images = await stage(TABLES.find((s) => s.target === 'images')!);
    expect(images.skipped).toEqual(['images id 901: image_format "bmp" is not one of gif, jpg, jpeg, png, svg, webm']);
    const png = JSON.parse(images.rows.find((r) => JSON.parse(r).id === 900)!);
    expect(png).toMatchObject({ image_format: 'png', image_width: 0 });
    expect(new Date(png.created_at).toISOString()).toBe('2024-02-29T23:59:59.123Z');

    const sources = await stage(TABLES.find((s) => s.target === 'image_sources')!);
    expect(sources.skipped).toEqual(['image_sources image_id 3: source is empty']);
    expect(sources.rows.map((r) => JSON.parse(r).source)).toContain('a\tb\\c');

    const comments = await stage(TABLES.find((s) => s.target === 'comments')!);
    const bodies = comments.rows.map((r) => JSON.parse(r) as { id: number; body: string; edit_reason: string | null });
    expect(bodies.find((c) => c.id === 2_000_000_000)!.body).toBe('tab\there, back\\slash, new\nline, \\N as text');
    expect(bodies.find((c) => c.id === 77)).toMatchObject({ body: '\\N', edit_reason: 'typo\there' });
  });
});
