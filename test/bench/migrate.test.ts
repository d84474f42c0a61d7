/**
 * `npm run bench -- migrate` end to end at a small size: a source is generated, imported by the
 * importer in a child process, indexed and searched, and the last line is the JSON of figures,
 * with every source row accounted for on the imported board.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'tagwise-bench-migrate-test-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run bench -- migrate --images 2000', () => {
  it('imports the generated board whole and prints the figures as one JSON line', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', join(ROOT, 'bench/migrate.ts'), '--images', '2000', '--dir', dir, '--runs', '20', '--baseline-runs', '2', '--variants', '2'],
      // Vitest's own BASE_URL ('/') is not the server's configuration.
      { cwd: ROOT, env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'BASE_URL')), maxBuffer: 16 * 1024 * 1024, timeout: 480_000 },
    );
    const lines = stdout.trim().split('\n');
    const figures = JSON.parse(lines[lines.length - 1]!);
    expect(figures).toMatchObject({ bench: 'migrate', images: 2000 });
    const { sourceRows, rowsWritten } = figures;
    expect(sourceRows.images).toBe(2000);
    // Tagwise's table of implications is the source's tags_implied_tags; everything else keeps its name.
    for (const [table, n] of Object.entries(sourceRows)) expect(rowsWritten[table === 'tags_implied_tags' ? 'tag_implications' : table], table).toBe(n);
    for (const t of Object.keys(rowsWritten)) expect(figures.rowsPerSecond[t], t).toBeGreaterThan(0);
    expect(figures.importerPeakRssMb).toBeGreaterThan(50);
    expect(figures.baselineRawCopySeconds).toBeGreaterThan(0);
    expect(figures.search.p50Ms).toBeGreaterThan(0);
    const [agree, of] = figures.search.totalsAgree.split('/').map(Number);
    expect(agree).toBe(of);
    expect(Object.keys(figures.met).sort()).toEqual(['importerRss', 'indexMemory', 'p50', 'p99', 'total']);
  }, 500_000);
});
