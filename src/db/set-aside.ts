/**
 * Loading empty tables in bulk: everything that costs a bulk load row by row is set aside for the
 * load and restored after it, inside the caller's transaction (DDL is transactional in PostgreSQL,
 * so a failure or a kill at any point rolls the schema back with the rows: a board is never left
 * without its keys, indexes or triggers). Building an index once over the loaded rows and
 * validating a foreign key with one join are far cheaper than doing either per row.
 *
 * Used by the benchmark seeder (src/seed/bulk.ts) and the first Philomena import
 * (src/import/philomena/apply.ts).
 */
import type { Sql } from 'postgres';

/** A connection or a transaction on it. */
type Runner = Pick<Sql, 'unsafe'>;

export interface RestoreStep {
  table: string;
  kind: 'key' | 'index' | 'foreign key' | 'triggers';
  statement: string;
  /** For a primary key, unique constraint or unique index: its columns (duplicates make it fail). */
  uniqueColumns?: string[];
}

/**
 * Set aside, for `tables` (in schema public): foreign keys (from or to them), primary keys and
 * unique constraints, other indexes, and user triggers (the search outbox). Returns the steps that
 * restore them, in a valid order.
 */
export async function setAsideConstraints(sql: Runner, tables: readonly string[]): Promise<RestoreStep[]> {
  const names = [...tables];
  const fks = await sql.unsafe<Array<{ table: string; name: string; def: string }>>(`
    select conrelid::regclass::text as table, conname as name, pg_get_constraintdef(oid) as def
    from pg_constraint where contype = 'f'
      and (conrelid::regclass::text = any($1::text[]) or confrelid::regclass::text = any($1::text[]))`, [names]);
  const keys = await sql.unsafe<Array<{ table: string; name: string; def: string; columns: string[] }>>(`
    select conrelid::regclass::text as table, conname as name, pg_get_constraintdef(c.oid) as def,
      (select json_agg(a.attname order by k.n) from unnest(c.conkey) with ordinality k(attnum, n)
        join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum) as columns
    from pg_constraint c where contype in ('p', 'u') and conrelid::regclass::text = any($1::text[])`, [names]);
  const indexes = await sql.unsafe<Array<{ table: string; name: string; def: string; columns: string[] | null }>>(`
    select i.tablename as table, i.indexname as name, i.indexdef as def,
      case when x.indisunique then (select json_agg(a.attname order by k.n) from unnest(x.indkey::int2[]) with ordinality k(attnum, n)
        join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum) end as columns
    from pg_indexes i
    join pg_class c on c.relname = i.indexname and c.relnamespace = 'public'::regnamespace
    join pg_index x on x.indexrelid = c.oid
    where i.schemaname = 'public' and i.tablename = any($1::text[])
      and not exists (select 1 from pg_constraint k where k.conname = i.indexname and k.contype in ('p', 'u', 'x'))`, [names]);
  for (const fk of fks) await sql.unsafe(`alter table ${fk.table} drop constraint "${fk.name}"`);
  for (const key of keys) await sql.unsafe(`alter table ${key.table} drop constraint "${key.name}"`);
  for (const ix of indexes) await sql.unsafe(`drop index public."${ix.name}"`);
  for (const t of names) await sql.unsafe(`alter table public."${t}" disable trigger user`);
  return [
    ...keys.map((key): RestoreStep => ({ table: key.table, kind: 'key', statement: `alter table ${key.table} add constraint "${key.name}" ${key.def}`, uniqueColumns: key.columns })),
    ...indexes.map((ix): RestoreStep => ({ table: ix.table, kind: 'index', statement: ix.def, ...(ix.columns ? { uniqueColumns: ix.columns } : {}) })),
    ...fks.map((fk): RestoreStep => ({ table: fk.table, kind: 'foreign key', statement: `alter table ${fk.table} add constraint "${fk.name}" ${fk.def}` })),
    ...names.map((t): RestoreStep => ({ table: t, kind: 'triggers', statement: `alter table public."${t}" enable trigger user` })),
  ];
}

export interface RestoreOptions {
  /** After each step, with its time. */
  onStep?: (step: RestoreStep, ms: number) => void;
  /**
   * Rows sharing a unique key make its restoration fail. Given this, such rows are removed (the
   * first one written stays), the caller is told how many went, and the key is built again;
   * without it the failure stands.
   */
  onDuplicates?: (step: RestoreStep, removed: number) => void;
}

const UNIQUE_VIOLATION = '23505';

/** Run the steps `setAsideConstraints` returned, on the same transaction. */
export async function restoreConstraints(sql: Runner, steps: readonly RestoreStep[], options: RestoreOptions = {}): Promise<void> {
  for (const step of steps) {
    const started = Date.now();
    if (step.uniqueColumns && options.onDuplicates) {
      await sql.unsafe('savepoint restore_unique');
      try {
        await sql.unsafe(step.statement);
      } catch (err) {
        await sql.unsafe('rollback to savepoint restore_unique');
        if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
        const same = step.uniqueColumns.map((c) => `a."${c}" = b."${c}"`).join(' and ');
        const removed = await sql.unsafe(`delete from ${step.table} a using ${step.table} b where ${same} and a.ctid > b.ctid`);
        options.onDuplicates(step, removed.count);
        await sql.unsafe(step.statement);
      }
      await sql.unsafe('release savepoint restore_unique');
    } else await sql.unsafe(step.statement);
    options.onStep?.(step, Date.now() - started);
  }
}
