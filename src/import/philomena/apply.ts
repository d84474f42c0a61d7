/**
 * Applying the staged tables to the board in one transaction: rows gone from the source are
 * removed (children first), then each table is upserted by its key in dependency order, writing
 * only rows that differ. A staged row whose required reference is missing, or that takes a name
 * another row holds, is skipped and reported; a missing optional reference is cleared. A table
 * that still fails is rolled back alone (savepoint) and reported; the others go on.
 *
 * Tables that are empty (a first import) are bulk-loaded: their keys, indexes, foreign keys and
 * triggers are set aside (src/db/set-aside.ts), the rows are inserted plainly, and everything is
 * rebuilt once at the end, in the same transaction, so a failed or killed run leaves the schema as
 * it found it.
 */
import type { TransactionSql } from 'postgres';
import { restoreConstraints, setAsideConstraints } from '../../db/set-aside.js';
import { keysTable, stagingTable } from './stage.js';
import type { Reporter, TableTally } from './report.js';
import type { Reference, TableSpec } from './tables.js';

/** How rows removed at the source are found: the whole table was staged, its ids were, or the changed images' children were. */
export type RemovalMode = 'full' | 'keys' | 'scoped' | 'none';

export interface Plan {
  spec: TableSpec;
  removal: RemovalMode;
}

const q = (c: string) => `"${c}"`;
const keyMatch = (spec: TableSpec, a: string, b: string) => spec.key.map((k) => `${a}.${q(k)} = ${b}.${q(k)}`).join(' and ');

async function removeGone(tx: TransactionSql, plan: Plan): Promise<number> {
  const { spec } = plan;
  const target = `public.${q(spec.target)}`;
  let where: string;
  if (plan.removal === 'full') where = `not exists (select 1 from ${stagingTable(spec.target)} s where ${keyMatch(spec, 's', 't')})`;
  else if (plan.removal === 'keys') where = `not exists (select 1 from ${keysTable(spec.target)} k where k.id = t.id)`;
  else if (plan.removal === 'scoped') {
    where = `t.image_id in (select id from ${stagingTable('images')}) and not exists (select 1 from ${stagingTable(spec.target)} s where ${keyMatch(spec, 's', 't')})`;
  } else return 0;
  const result = await tx.unsafe(`delete from ${target} t where ${where}`);
  return result.count;
}

/** The test that a staged row's reference names a row; with `ref.table` the target, a staged row does too. */
function referenceExists(spec: TableSpec, ref: Reference): string {
  return `exists (select 1 from public.${q(ref.table)} r where r.id = s.${q(ref.column)})` +
    (ref.table === spec.target ? ` or exists (select 1 from ${stagingTable(ref.table)} r2 where r2.id = s.${q(ref.column)})` : '');
}

const danglingReason = (ref: Reference) => `${ref.column} names no ${ref.table} row`;

/** Delete staged rows matching `where`, counting them under `reason` and reporting a few; returns how many went. */
async function skipStaged(tx: TransactionSql, spec: TableSpec, tally: TableTally, reporter: Reporter, where: string, reason: string): Promise<number> {
  const describeSql = `concat_ws(' ', ${spec.key.map((k) => `'${k}', s.${q(k)}`).join(', ')})`;
  const [row] = await tx.unsafe<Array<{ n: number; sample: string[] | null }>>(
    `with d as (delete from ${stagingTable(spec.target)} s where ${where} returning ${describeSql} as id) select count(*)::int as n, (array_agg(id))[1:5] as sample from d`,
  );
  if (row!.n === 0) return 0;
  tally.skipped[reason] = (tally.skipped[reason] ?? 0) + row!.n;
  for (const id of row!.sample ?? []) reporter.skipped(spec.target, id, reason);
  return row!.n;
}

/**
 * Skip staged rows that cannot be written; clear optional references that point nowhere. The
 * references in `checkedOnInsert` are left to the insert. Returns the rows skipped.
 */
async function prune(tx: TransactionSql, spec: TableSpec, tally: TableTally, reporter: Reporter, checkedOnInsert: readonly Reference[] = []): Promise<number> {
  const stage = stagingTable(spec.target);
  let skipped = 0;
  for (const ref of spec.references ?? []) {
    if (checkedOnInsert.includes(ref)) continue;
    const dangling = `s.${q(ref.column)} is not null and not (${referenceExists(spec, ref)})`;
    if (ref.optional) {
      const result = await tx.unsafe(`update ${stage} s set ${q(ref.column)} = null where ${dangling}`);
      if (result.count > 0) {
        const reason = `${ref.column} (no such ${ref.table} row)`;
        tally.adjusted[reason] = (tally.adjusted[reason] ?? 0) + result.count;
      }
    } else skipped += await skipStaged(tx, spec, tally, reporter, dangling, danglingReason(ref));
  }
  for (const cols of spec.unique ?? []) {
    const same = cols.map((c) => `t.${q(c)} = s.${q(c)}`).join(' and ');
    const reason = `${cols.join(', ')} already taken by another row`;
    skipped += await skipStaged(tx, spec, tally, reporter, `exists (select 1 from public.${q(spec.target)} t where ${same} and not (${keyMatch(spec, 't', 's')}))`, reason);
    // Two staged rows with the same value: the first one read stays.
    skipped += await skipStaged(tx, spec, tally, reporter, `exists (select 1 from ${stage} t where ${same} and t.ctid < s.ctid)`, reason);
  }
  return skipped;
}

/**
 * The required references of a bulk-loaded table that the insert itself can check: those of
 * another table on a NOT NULL column (a staged null there fails the insert either way). One
 * pass that inserts the rows whose references exist costs a join less than deleting the others
 * first; the others are looked for only when rows were left out.
 */
async function checkedOnInsert(tx: TransactionSql, spec: TableSpec): Promise<Reference[]> {
  const refs = (spec.references ?? []).filter((r) => !r.optional && r.table !== spec.target);
  if (refs.length === 0) return [];
  const rows = await tx.unsafe<Array<{ name: string }>>(
    `select attname as name from pg_attribute where attrelid = $1::regclass and attnotnull and attname = any($2::text[])`,
    [`public.${q(spec.target)}`, refs.map((r) => r.column)],
  );
  const notNull = new Set(rows.map((r) => r.name));
  return refs.filter((r) => notNull.has(r.column));
}

async function upsert(tx: TransactionSql, spec: TableSpec, tally: TableTally): Promise<void> {
  const computed = spec.computed ?? {};
  const columns = [...spec.columns, ...Object.keys(computed)];
  const select = [...spec.columns.map(q), ...Object.values(computed)].join(', ');
  const rest = columns.filter((c) => !spec.key.includes(c));
  const onConflict = rest.length === 0
    ? 'do nothing'
    : `do update set ${rest.map((c) => `${q(c)} = excluded.${q(c)}`).join(', ')} where (${rest.map((c) => `t.${q(c)}`).join(', ')}) is distinct from (${rest.map((c) => `excluded.${q(c)}`).join(', ')})`;
  const [row] = await tx.unsafe<Array<{ staged: number; inserted: number; updated: number }>>(`
    with w as (
      insert into public.${q(spec.target)} as t (${columns.map(q).join(', ')})
      select ${select} from ${stagingTable(spec.target)}
      on conflict (${spec.key.map(q).join(', ')}) ${onConflict}
      returning (xmax = 0) as inserted)
    select (select count(*)::int from ${stagingTable(spec.target)}) as staged,
           count(*) filter (where inserted)::int as inserted, count(*) filter (where not inserted)::int as updated from w`);
  tally.inserted += row!.inserted;
  tally.updated += row!.updated;
  tally.unchanged += row!.staged - row!.inserted - row!.updated;
}

/**
 * Fill an empty table with every staged row whose references in `checked` exist (`remaining`
 * rows are staged); its keys are rebuilt afterwards. Rows left out are then skipped and reported
 * as `prune` would have.
 */
async function insertAll(tx: TransactionSql, spec: TableSpec, tally: TableTally, reporter: Reporter, checked: readonly Reference[], remaining: number): Promise<void> {
  const computed = spec.computed ?? {};
  const columns = [...spec.columns, ...Object.keys(computed)];
  const select = [...spec.columns.map(q), ...Object.values(computed)].join(', ');
  const where = checked.map((ref) => referenceExists(spec, ref)).join(' and ');
  // Computed columns (window functions) see every staged row: filter before computing.
  const from = where === '' ? stagingTable(spec.target) : `(select * from ${stagingTable(spec.target)} s where ${where}) s`;
  const result = await tx.unsafe(`insert into public.${q(spec.target)} (${columns.map(q).join(', ')}) select ${select} from ${from}`);
  tally.inserted += result.count;
  if (result.count < remaining) {
    for (const ref of checked) await skipStaged(tx, spec, tally, reporter, `not (${referenceExists(spec, ref)})`, danglingReason(ref));
  }
  // Planning the next tables' reference checks and the foreign keys' validation needs statistics.
  await tx.unsafe(`analyze public.${q(spec.target)}`);
}

/** Move each id sequence past the largest id, never backwards. */
async function advanceSequences(tx: TransactionSql, targets: readonly string[]): Promise<void> {
  for (const target of targets) {
    const [seq] = await tx.unsafe<Array<{ name: string | null }>>(`select pg_get_serial_sequence($1, 'id') as name`, [`public.${q(target)}`]);
    if (!seq?.name) continue;
    await tx.unsafe(`select setval($1, greatest((select coalesce(max(id), 0) from public.${q(target)}),
      (select case when is_called then last_value else last_value - 1 end from ${seq.name})) + 1, false)`, [seq.name]);
  }
}

export interface ApplyOptions {
  /** The board is empty: its empty tables are bulk-loaded. */
  emptyBoard?: boolean;
  /** Called when the rows are in and the keys and indexes not yet rebuilt (a test stops a run here). */
  onLoaded?: () => Promise<void>;
}

/** The targets that hold no row. */
async function emptyTargets(tx: TransactionSql, targets: readonly string[]): Promise<string[]> {
  const empty: string[] = [];
  for (const t of targets) if ((await tx.unsafe(`select 1 from public.${q(t)} limit 1`)).length === 0) empty.push(t);
  return empty;
}

export async function applyStaged(
  tx: TransactionSql,
  plans: readonly Plan[],
  tallies: Map<string, TableTally>,
  reporter: Reporter,
  options: ApplyOptions = {},
): Promise<void> {
  // The reference checks join staged tables of millions of rows against whole tables (with their
  // keys set aside in a first import): hash joins that fit in memory instead of spilling to disk.
  await tx.unsafe(`select set_config('work_mem', '256MB', true)`);
  const byTarget = new Map(plans.map((p) => [p.spec.target, p]));
  // The public dump keeps aliases apart; fold them into the staged tags.
  if (byTarget.has('tag_aliases') && byTarget.has('tags')) {
    await tx.unsafe(`update ${stagingTable('tags')} s set aliased_tag_id = a.target_tag_id from ${stagingTable('tag_aliases')} a where a.tag_id = s.id`);
  }
  const writable = plans.filter((p) => !p.spec.stagingColumns);
  const bulk = new Set(options.emptyBoard ? await emptyTargets(tx, writable.map((p) => p.spec.target)) : []);
  for (const plan of [...writable].reverse()) {
    if (bulk.has(plan.spec.target)) continue;
    try {
      tallies.get(plan.spec.target)!.deleted += await tx.savepoint((sp) => removeGone(sp, plan));
    } catch (err) {
      reporter.note(`could not remove rows gone from ${plan.spec.target}: ${(err as Error).message}`);
    }
  }
  const restore = bulk.size > 0 ? await setAsideConstraints(tx, [...bulk]) : [];
  for (const plan of writable) {
    const tally = tallies.get(plan.spec.target)!;
    const started = Date.now();
    let checked = started;
    try {
      await tx.savepoint(async (sp) => {
        if (bulk.has(plan.spec.target)) {
          const onInsert = await checkedOnInsert(sp, plan.spec);
          const skipped = await prune(sp, plan.spec, tally, reporter, onInsert);
          checked = Date.now();
          await insertAll(sp, plan.spec, tally, reporter, onInsert, tally.staged - skipped);
        } else {
          await prune(sp, plan.spec, tally, reporter);
          checked = Date.now();
          await upsert(sp, plan.spec, tally);
        }
      });
    } catch (err) {
      const reason = `table failed: ${(err as Error).message}`;
      tally.skipped[reason] = (tally.skipped[reason] ?? 0) + tally.staged;
      reporter.note(`${plan.spec.target} was not written: ${(err as Error).message}`);
    }
    const ms = Date.now() - started;
    if (ms >= 1000) reporter.note(`  ${bulk.has(plan.spec.target) ? 'loaded' : 'merged'} ${plan.spec.target}: ${(ms / 1000).toFixed(1)}s (checks before it ${((checked - started) / 1000).toFixed(1)}s)`);
  }
  if (restore.length > 0) {
    await options.onLoaded?.();
    // One sorted build per index: give the sorts room (this transaction only).
    await tx.unsafe(`select set_config('maintenance_work_mem', '1GB', true)`);
    reporter.note(`rebuilding ${restore.filter((s) => s.kind !== 'triggers').length} keys, indexes and foreign keys of ${bulk.size} tables`);
    await restoreConstraints(tx, restore, {
      onStep: (step, ms) => {
        if (ms >= 1000) reporter.note(`  ${step.kind} on ${step.table}: ${(ms / 1000).toFixed(1)}s`);
      },
      onDuplicates: (step, removed) => {
        const table = step.table.replace(/^.*\.|"/g, '');
        const reason = `${step.uniqueColumns!.join(', ')} repeated (the first row stays)`;
        const tally = tallies.get(table);
        if (tally) {
          tally.skipped[reason] = (tally.skipped[reason] ?? 0) + removed;
          tally.inserted -= removed;
        }
        reporter.note(`${table}: ${removed} rows removed, ${reason}`);
      },
    });
  }
  await advanceSequences(tx, writable.filter((p) => p.spec.key.join() === 'id').map((p) => p.spec.target));
}
