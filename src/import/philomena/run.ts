/**
 * One import run from a Philomena source into the board: stage every table (resumable: tables an
 * interrupted run staged are not read again), then apply everything in one transaction, keeping
 * every id. The first run into an empty board bypasses the search outbox and the caller rebuilds
 * the indices; later runs write only what changed, and the outbox carries it to the indices.
 *
 * Incremental runs: from a live database, tables with `updated_at` are read from the previous
 * run's snapshot time on (plus every id, to find removed rows) and image children for the changed
 * images only; a dump is read whole and compared. Either way only differing rows are written.
 */
import type { Sql } from 'postgres';
import { RECORD_CHANGES_CHANNEL } from '../../db/record-change-feed.js';
import { sqlClientOf, type Database } from '../../db/client.js';
import { isBoardEmpty, truncateBoard } from '../../seed/common.js';
import { applyStaged, type Plan } from './apply.js';
import { emptyTally, silentReporter, type Reporter, type TableTally } from './report.js';
import type { PhilomenaSource } from './source.js';
import { STAGING, keysTable, sourceTablesOf, stageKeys, stageTable, stagingTable } from './stage.js';
import { TABLES } from './tables.js';

export interface MigrateOptions {
  reporter?: Reporter;
  /** Empty a board that has content not imported from Philomena first. */
  force?: boolean;
  /** Called after each table is staged (a test stops a run here to prove resuming). */
  onStaged?: (target: string) => void;
  /**
   * The origin serving the files of images imported without them (`https://derpicdn.net`), kept
   * with the import for the server; a run without it keeps the one stored before.
   */
  originCdn?: string;
  /** Called in a first import once the rows are in, before keys and indexes are rebuilt (a test stops a run here). */
  onLoaded?: () => Promise<void>;
}

export interface MigrateResult {
  dialect: string;
  /** The board was empty: the search outbox was bypassed and the indices must be rebuilt. */
  firstImport: boolean;
  /** Tables the run read, in order, with their counts. */
  tallies: Map<string, TableTally>;
  /** Source tables that could not be read, with why (a dump lacks them, ...). */
  absent: Record<string, string>;
  seconds: number;
}

export class MigrateRefused extends Error {
  override name = 'MigrateRefused';
}

interface State {
  source: string;
  snapshot: string | null;
  pending_source: string | null;
  pending_snapshot: string | null;
  staged: Record<string, TableTally>;
}

/** Which schema the source has, from its columns (philomena-db.md §1.24 and §2). */
export function detectDialect(tables: ReadonlyMap<string, readonly string[]>): string {
  const cols = (t: string) => tables.get(t) ?? [];
  if (tables.has('tag_aliases') || cols('images').includes('upvotes')) return 'public dump';
  if (cols('users').includes('comments_posted_count') || cols('galleries').includes('creator_id')) return 'Derpibooru (older Philomena)';
  return 'current Philomena';
}

async function readState(sql: Sql): Promise<State | undefined> {
  const [row] = await sql<State[]>`select source, snapshot, pending_source, pending_snapshot, staged from philomena_import where id = 1`;
  return row;
}

/** Rows in a staging table, or undefined when it is gone (unlogged tables empty after a crash, too). */
async function stagedRows(sql: Sql, table: string): Promise<number | undefined> {
  const [row] = await sql.unsafe<Array<{ exists: boolean }>>(`select to_regclass($1) is not null as exists`, [table]);
  if (!row?.exists) return undefined;
  const [count] = await sql.unsafe<Array<{ n: number }>>(`select count(*)::int as n from ${table}`);
  return count!.n;
}

export async function migratePhilomena(db: Database, source: PhilomenaSource, options: MigrateOptions = {}): Promise<MigrateResult> {
  const started = Date.now();
  const reporter = options.reporter ?? silentReporter;
  const sql = sqlClientOf(db);
  let state = await readState(sql);
  const firstImport = await isBoardEmpty(db);
  if (!firstImport && state === undefined) {
    if (!options.force) throw new MigrateRefused('the board already has content that was not imported from Philomena; --force empties it first');
    await truncateBoard(db);
    state = undefined;
  }

  const key = source.label;
  const resuming = state?.pending_source === key;
  if (!resuming) {
    await sql.unsafe(`drop schema if exists ${STAGING} cascade`);
    const snapshot = await source.snapshotTime();
    await sql`insert into philomena_import (id, source, pending_source, pending_snapshot, staged)
      values (1, ${key}, ${key}, ${snapshot}, '{}'::jsonb)
      on conflict (id) do update set pending_source = excluded.pending_source, pending_snapshot = excluded.pending_snapshot, staged = '{}'::jsonb`;
    state = await readState(sql);
  } else reporter.note(`resuming the interrupted import of ${key}`);
  const since = source.filters && state!.source === key && state!.snapshot !== null ? state!.snapshot : undefined;

  const tables = await source.tables();
  const dialect = detectDialect(tables);
  const versions = await source.migrations();
  reporter.note(`reading ${key}: ${dialect} schema${versions.length ? `, last migration ${versions[versions.length - 1]}` : ''}${since ? `, changes since ${since}` : ''}`);

  const tallies = new Map<string, TableTally>();
  const absent: Record<string, string> = {};
  const plans: Plan[] = [];
  for (const spec of TABLES) {
    const chosen = sourceTablesOf(spec, tables);
    if ('missing' in chosen) {
      absent[spec.target] = chosen.missing;
      continue;
    }
    const removal = since === undefined || spec.stagingColumns ? 'full' : spec.changedBy ? 'keys' : spec.imageChild ? 'scoped' : 'full';
    plans.push({ spec, removal });
    const done = state!.staged[spec.target];
    const intact = async (d: TableTally) =>
      (await stagedRows(sql, stagingTable(spec.target))) === d.staged &&
      (removal !== 'keys' || (await stagedRows(sql, keysTable(spec.target))) === d.keys);
    if (done && (await intact(done))) {
      tallies.set(spec.target, done);
      continue;
    }
    const tally = emptyTally();
    tallies.set(spec.target, tally);
    const filter = since === undefined ? undefined : spec.changedBy ? { updatedSince: since } : spec.imageChild ? { imagesChangedSince: since } : undefined;
    const estimate = filter ? undefined : await source.estimate(chosen.tables[0]!.table);
    await stageTable(sql, source, spec, chosen.tables, filter, estimate, tally, reporter);
    if (removal === 'keys') tally.keys = await stageKeys(sql, source, chosen.tables[0]!.table, spec.target);
    await sql`update philomena_import set staged = staged || ${JSON.stringify({ [spec.target]: tally })}::jsonb where id = 1`;
    options.onStaged?.(spec.target);
  }
  if (absent.tag_aliases !== undefined) delete absent.tag_aliases; // only the public dump has it
  for (const [target, why] of Object.entries(absent)) reporter.note(`${target}: not in the source (${why}); left as it is`);

  reporter.note('applying the staged rows');
  await sql.begin(async (tx) => {
    if (firstImport) {
      // Nothing is indexed yet: the caller rebuilds every index, so the outbox is bypassed.
      await tx.unsafe(`select set_config('tagwise.skip_outbox', 'on', true), pg_notify($1, '*')`, [RECORD_CHANGES_CHANNEL]);
    }
    await applyStaged(tx, plans, tallies, reporter, { emptyBoard: firstImport, ...(options.onLoaded ? { onLoaded: options.onLoaded } : {}) });
    await tx`update philomena_import set source = pending_source, snapshot = coalesce(pending_snapshot, snapshot),
      completed_at = now(), pending_source = null, pending_snapshot = null, staged = '{}'::jsonb,
      origin_cdn = coalesce(${options.originCdn ?? null}, origin_cdn) where id = 1`;
  });
  await sql.unsafe(`drop schema if exists ${STAGING} cascade`);
  return { dialect, firstImport, tallies, absent, seconds: (Date.now() - started) / 1000 };
}
