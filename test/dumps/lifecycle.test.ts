/**
 * How dumps come and go: one at a time across processes (the advisory lock), the nightly timer,
 * keeping the newest N with `latest.json`, same-day runs, stopping midway, the settings, and the
 * `dump` and `import` commands.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type Config } from '../../src/config.js';
import { listDumpNames, readLatest } from '../../src/dumps/layout.js';
import { DirectoryStorage } from '../../src/media/storage-directory.js';
import { readDump } from '../../src/dumps/read.js';
import { DumpSchedule, nextRunAt, startDumpSchedule } from '../../src/dumps/schedule.js';
import { DUMP_LOCK, DumpBusyError, writeDump } from '../../src/dumps/write.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { runTool } from '../support/run-tool.js';
import { waitUntil } from '../support/wait.js';
import { insertImage, insertTag, insertUser } from '../http/harness.js';


let t: TestDatabase;
let dataDir: string;
let config: Config;
let root: string;
let dumps: DirectoryStorage;

const day = (d: string) => new Date(`${d}T03:00:00Z`);

beforeAll(async () => {
  t = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'tagwise-dump-life-'));
  root = join(dataDir, 'dumps');
  dumps = new DirectoryStorage(root);
  config = loadConfig({ DATA_DIR: dataDir, DEMO_DATA: 'false', DUMP_AT: '03:00', DUMP_KEEP: '2' });
  const user = await insertUser(t.db, { name: 'Lifecycle User' });
  const tag = await insertTag(t.db, 'safe');
  await insertImage(t.db, { values: { userId: user.id }, tags: [tag] });
});

afterAll(async () => {
  await t?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('one dump at a time', () => {
  it('refuses a dump while another process holds the lock', async () => {
    const schedule = new DumpSchedule({ db: t.db, config, now: () => day('2025-01-01') });
    await t.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${DUMP_LOCK}::bigint)`);
      await expect(writeDump(t.db, { storage: dumps, config, now: day('2025-01-01') })).rejects.toBeInstanceOf(DumpBusyError);
      expect(await schedule.runNow()).toEqual({ status: 'busy' });
    });
    expect(await listDumpNames(dumps)).toEqual([]);
  });

  it('lets one of two schedules dump; the other skips, and skips again once the day is dumped', async () => {
    let reached!: () => void;
    let release!: () => void;
    const atFirstBatch = new Promise<void>((r) => (reached = r));
    const paused = new Promise<void>((r) => (release = r));
    const now = () => day('2025-01-02');
    const a = new DumpSchedule({ db: t.db, config, now, dump: { onProgress: async () => { reached(); await paused; } } });
    const b = new DumpSchedule({ db: t.db, config, now });
    const first = a.runNow();
    await atFirstBatch;
    expect(await b.runNow()).toEqual({ status: 'busy' });
    release();
    expect(await first).toMatchObject({ status: 'written', result: { name: '2025-01-02' } });
    expect(await b.runNow()).toEqual({ status: 'exists' });
    expect(await listDumpNames(dumps)).toEqual(['2025-01-02']);
  });
});

describe('dated dumps', () => {
  it('keeps the newest N with latest.json on the newest, replaces a same-day dump, and leaves nothing half-written', async () => {
    for (const d of ['2025-01-03', '2025-01-04']) await writeDump(t.db, { storage: dumps, config, keep: 2, now: day(d) });
    expect(await listDumpNames(dumps)).toEqual(['2025-01-04', '2025-01-03']);
    expect((await readLatest(dumps))?.name).toBe('2025-01-04');

    // An older day does not move the pointer (and falls out at once with keep 2).
    await writeDump(t.db, { storage: dumps, config, keep: 2, now: day('2025-01-01') });
    expect(await listDumpNames(dumps)).toEqual(['2025-01-04', '2025-01-03']);
    expect((await readLatest(dumps))?.name).toBe('2025-01-04');

    // The same day again: replaced, unless asked to leave it.
    const later = new Date('2025-01-04T09:30:00Z');
    expect(await writeDump(t.db, { storage: dumps, config, keep: 2, now: later, ifMissing: true })).toBeNull();
    const replaced = await writeDump(t.db, { storage: dumps, config, keep: 2, now: later });
    expect(replaced?.manifest.created_at).toBe('2025-01-04T09:30:00Z');
    expect(JSON.parse(readFileSync(join(root, '2025-01-04', 'board.json'), 'utf8')).dumped_at).toBe('2025-01-04T09:30:00Z');

    // Stopped midway: no trace, the dumps in place untouched.
    const abort = new AbortController();
    await expect(
      writeDump(t.db, { storage: dumps, config, keep: 2, now: day('2025-01-05'), signal: abort.signal, onProgress: () => abort.abort() }),
    ).rejects.toThrow(/abort/i);
    expect(readdirSync(root).sort()).toEqual(['2025-01-03', '2025-01-04', 'latest.json']);

    // A dumps root reads as its latest dump; one file reads as its resource alone.
    const data = await readDump(root);
    expect(data.users).toHaveLength(1);
    expect(data.images).toHaveLength(1);
    expect(await readDump(join(root, '2025-01-03', 'tags.jsonl.gz'))).toEqual({ tags: [expect.objectContaining({ name: 'safe' })] });
  });
});

describe('the nightly timer', () => {
  it('computes the next run in UTC', () => {
    const at = { hour: 3, minute: 0 };
    expect(nextRunAt(new Date('2025-06-01T02:59:59Z'), at).toISOString()).toBe('2025-06-01T03:00:00.000Z');
    expect(nextRunAt(new Date('2025-06-01T03:00:00Z'), at).toISOString()).toBe('2025-06-02T03:00:00.000Z');
    expect(nextRunAt(new Date('2025-12-31T23:10:00Z'), { hour: 0, minute: 5 }).toISOString()).toBe('2026-01-01T00:05:00.000Z');
  });

  it('dumps when DUMP_AT comes, then waits for the next day; off means no timer', async () => {
    const started = Date.now();
    const base = Date.parse('2025-02-01T02:59:59.850Z');
    const logged: string[] = [];
    const schedule = startDumpSchedule({
      db: t.db,
      config,
      now: () => new Date(base + (Date.now() - started)),
      log: { info: (_o, msg) => logged.push(msg ?? ''), error: (_o, msg) => logged.push(`error: ${msg}`) },
    })!;
    expect(schedule.nextRun?.toISOString()).toBe('2025-02-01T03:00:00.000Z');
    await waitUntil(() => `the dump; logged ${JSON.stringify(logged)}`, () => logged.length > 0, 20_000, 50);
    expect(logged).toEqual(['dump written']);
    expect(await listDumpNames(dumps)).toContain('2025-02-01');
    // the next run is scheduled once the dump is written
    const next = await waitUntil('the next run', () => schedule.nextRun?.toISOString() !== '2025-02-01T03:00:00.000Z' && schedule.nextRun, 5_000, 10);
    expect(next.toISOString()).toBe('2025-02-02T03:00:00.000Z');
    await schedule.stop();
    expect(schedule.nextRun).toBeUndefined();
    expect(await schedule.runNow()).toEqual({ status: 'stopped' });

    const off = loadConfig({ DATA_DIR: dataDir, DUMP_AT: 'off' });
    expect(startDumpSchedule({ db: t.db, config: off })).toBeNull();
  });

  it('reads DUMP_AT and DUMP_KEEP from the environment', () => {
    expect(loadConfig({}).dumps).toEqual({ at: { hour: 3, minute: 0 }, keep: 7 });
    expect(loadConfig({ DUMP_AT: '23:45', DUMP_KEEP: '30' }).dumps).toEqual({ at: { hour: 23, minute: 45 }, keep: 30 });
    expect(loadConfig({ DUMP_AT: 'OFF' }).dumps.at).toBeNull();
    expect(loadConfig({ DUMP_AT: ' ' }).dumps.at).toEqual({ hour: 3, minute: 0 });
    for (const bad of ['24:00', '3:00', '03:60', 'nightly', '03:00Z']) expect(() => loadConfig({ DUMP_AT: bad }), bad).toThrow(/DUMP_AT: must be HH:MM/);
    for (const bad of ['0', '-1', 'many']) expect(() => loadConfig({ DUMP_KEEP: bad }), bad).toThrow(ConfigError);
  });
});

describe('the commands', () => {
  let empty: TestDatabase;
  let cliData: string;
  beforeAll(async () => {
    empty = await createTestDatabase();
    cliData = mkdtempSync(join(tmpdir(), 'tagwise-dump-cli-'));
  });
  afterAll(async () => {
    await empty?.drop();
    if (cliData) rmSync(cliData, { recursive: true, force: true });
  });

  const run = (script: string, url: string, ...args: string[]) => runTool(script, args, { DATABASE_URL: url, DATA_DIR: cliData });

  it('npm run dump writes a dump that npm run import reads into an empty database', async () => {
    const dumped = await run('src/cli/dump.ts', t.url);
    expect(dumped.code, dumped.stderr).toBe(0);
    expect(dumped.stdout).toMatch(/^dump \d{4}-\d{2}-\d{2} written to .*\n {2}users\.jsonl\.gz: 1 record, \d+ bytes\n/);
    const [again, imported] = await Promise.all([run('src/cli/dump.ts', t.url), run('src/cli/import.ts', empty.url, join(cliData, 'dumps'))]);
    expect(again).toMatchObject({ code: 0 });
    expect(again.stdout).toContain("today's dump is already in");
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('images: 1 inserted');
    const [row] = await empty.db.execute<{ name: string }>(sql`select name from users`);
    expect(row?.name).toBe('Lifecycle User');
    expect(existsSync(join(join(cliData, 'dumps'), 'latest.json'))).toBe(true);
  }, 180_000);
});
