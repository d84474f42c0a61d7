/**
 * The generic steps of writing an import: rows upserted by id and only when they differ, child
 * rows (tags of an image, images of a gallery, ...) made exactly what the file says, and the
 * tally of what was inserted, updated and left alone.
 */
import { and, eq, getTableColumns, getTableName, inArray, isNull } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Transaction } from '../../db/executor.js';

function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  }
  return a === b || (a == null && b == null);
}

export function differs(existing: Record<string, unknown>, desired: Record<string, unknown>): boolean {
  return Object.keys(desired).some((k) => !same(existing[k], desired[k]));
}

export class Tally {
  inserted: Record<string, number> = {};
  updated: Record<string, number> = {};
  unchanged: Record<string, number> = {};
  add(kind: 'inserted' | 'updated' | 'unchanged', table: string, n = 1) {
    if (n === 0) return;
    const value = (this[kind][table] ?? 0) + n;
    if (value === 0) delete this[kind][table];
    else this[kind][table] = value;
  }
}

/** A property of a table's rows, naming one of its columns. */
type ColumnKey<T extends PgTable> = keyof T['$inferInsert'] & string;

function columnOf(table: PgTable, key: string): PgColumn {
  return (getTableColumns(table) as Record<string, PgColumn>)[key]!;
}

/**
 * Insert the rows whose key (`idKey`, a property of the rows) is new, update the ones that differ
 * (only the given columns), leave identical ones alone. The tally counts them under the table's name.
 */
export async function upsertById<T extends PgTable>(
  tx: Transaction,
  table: T,
  idKey: ColumnKey<T>,
  rows: Array<T['$inferInsert']>,
  tally: Tally,
): Promise<Set<unknown>> {
  const unchanged = new Set<unknown>();
  if (rows.length === 0) return unchanged;
  const label = getTableName(table);
  const idColumn = columnOf(table, idKey);
  const ids = rows.map((r) => (r as Record<string, unknown>)[idKey]);
  const existing = new Map<unknown, Record<string, unknown>>();
  for (let i = 0; i < ids.length; i += 1000) {
    const chunk = ids.slice(i, i + 1000);
    const found = (await tx.select().from(table as PgTable).where(inArray(idColumn, chunk))) as Array<Record<string, unknown>>;
    for (const row of found) existing.set(row[idKey], row);
  }
  const fresh: Array<T['$inferInsert']> = [];
  for (const row of rows) {
    const key = (row as Record<string, unknown>)[idKey];
    const old = existing.get(key);
    if (!old) fresh.push(row);
    else if (differs(old, row as Record<string, unknown>)) {
      await tx.update(table).set(row as never).where(eq(idColumn, key));
      tally.add('updated', label);
    } else {
      tally.add('unchanged', label);
      unchanged.add(key);
    }
  }
  for (let i = 0; i < fresh.length; i += 500) await tx.insert(table).values(fresh.slice(i, i + 500) as never);
  tally.add('inserted', label, fresh.length);
  return unchanged;
}

/**
 * Make the child rows of some parents exactly `desired`: delete the others, insert the missing,
 * update the ones whose other columns differ. `key` identifies a child within its parent. The
 * tally counts them under the table's name.
 */
export async function syncChildren<T extends PgTable, R extends Record<string, unknown>>(
  tx: Transaction,
  spec: {
    table: T;
    /** The property naming the parent row, e.g. `imageId` of image_taggings. */
    parent: ColumnKey<T>;
    /** The properties that tell a parent's children apart. */
    identity: ColumnKey<T>[];
  },
  parentIds: readonly number[],
  desired: R[],
  tally: Tally,
): Promise<void> {
  if (parentIds.length === 0) return;
  const label = getTableName(spec.table);
  const parentColumn = columnOf(spec.table, spec.parent);
  const columns = [spec.parent, ...spec.identity].map((k) => [k, columnOf(spec.table, k)] as const);
  // Dates compare by instant; a null key (an unset optional reference) matches only null.
  const key = (row: R) => columns.map(([k]) => (row[k] instanceof Date ? (row[k] as Date).getTime() : String(row[k]))).join('|');
  const where = (row: R) => and(...columns.map(([k, column]) => (row[k] === null ? isNull(column) : eq(column, row[k]))));
  const existing = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < parentIds.length; i += 1000) {
    const found = (await tx.select().from(spec.table as PgTable).where(inArray(parentColumn, parentIds.slice(i, i + 1000)))) as R[];
    for (const row of found) existing.set(key(row), row);
  }
  const wanted = new Set<string>();
  const fresh: R[] = [];
  for (const row of desired) {
    const k = key(row);
    wanted.add(k);
    const old = existing.get(k);
    if (!old) fresh.push(row);
    else if (differs(old, row)) {
      await tx.update(spec.table).set(row as never).where(where(row));
      tally.add('updated', label);
    } else tally.add('unchanged', label);
  }
  for (const [k, old] of existing) {
    if (!wanted.has(k)) {
      await tx.delete(spec.table).where(where(old as R));
      tally.add('updated', label);
    }
  }
  for (let i = 0; i < fresh.length; i += 500) await tx.insert(spec.table).values(fresh.slice(i, i + 500) as never);
  tally.add('inserted', label, fresh.length);
}
