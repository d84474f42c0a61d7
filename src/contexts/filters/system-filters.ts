/** System filters: creating, editing and listing them, with their tag lists resolved by name. */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { cleanTagName } from '../../../grammar/index.js';
import type { Database } from '../../db/client.js';
import { filters, tags } from '../../db/schema/index.js';
import { complexProblem } from '../search/filter-check.js';
import { AdminError } from '../errors.js';
import type { FilterRow } from './types.js';

/** A comma-separated list of tag names as tag ids (aliases resolved to their targets). */
export async function resolveTagList(db: Database, list: string): Promise<number[]> {
  const names = [...new Set(list.split(',').map(cleanTagName).filter((n) => n !== ''))];
  if (names.length === 0) return [];
  const rows = await db
    .select({ id: tags.id, name: tags.name, aliasedTagId: tags.aliasedTagId })
    .from(tags)
    .where(inArray(tags.name, names));
  const byName = new Map(rows.map((r) => [r.name, r]));
  const missing = names.filter((n) => !byName.has(n));
  if (missing.length > 0) throw new AdminError(`unknown tag${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`);
  return [...new Set(names.map((n) => byName.get(n)!).map((r) => r.aliasedTagId ?? r.id))];
}

async function checkComplex(label: string, q: string): Promise<string> {
  const problem = await complexProblem(q);
  if (problem) throw new AdminError(`${label} is invalid: ${problem}`);
  return q;
}

export interface SystemFilterInput {
  name?: string;
  description?: string;
  hide?: string;
  spoiler?: string;
  hiddenComplex?: string;
  spoileredComplex?: string;
}

async function values(db: Database, input: SystemFilterInput): Promise<Partial<typeof filters.$inferInsert>> {
  const out: Partial<typeof filters.$inferInsert> = {};
  if (input.name !== undefined) {
    const name = input.name.trim();
    if (name === '') throw new AdminError('a filter name may not be blank');
    out.name = name;
  }
  if (input.description !== undefined) {
    if (Buffer.byteLength(input.description, 'utf8') > 10_000) throw new AdminError('a description may have at most 10000 bytes');
    out.description = input.description;
  }
  if (input.hide !== undefined) out.hiddenTagIds = await resolveTagList(db, input.hide);
  if (input.spoiler !== undefined) out.spoileredTagIds = await resolveTagList(db, input.spoiler);
  if (input.hiddenComplex !== undefined) out.hiddenComplexStr = await checkComplex('--hidden-complex', input.hiddenComplex);
  if (input.spoileredComplex !== undefined) out.spoileredComplexStr = await checkComplex('--spoilered-complex', input.spoileredComplex);
  return out;
}

async function assertNameFree(db: Database, name: string, exceptId?: number): Promise<void> {
  const rows = await db
    .select({ id: filters.id })
    .from(filters)
    .where(and(eq(filters.system, true), sql`lower(${filters.name}) = lower(${name})`));
  if (rows.some((r) => r.id !== exceptId)) throw new AdminError(`a system filter named ${JSON.stringify(name)} exists`);
}

export async function createSystemFilter(db: Database, input: SystemFilterInput & { name: string }): Promise<FilterRow> {
  const v = await values(db, input);
  await assertNameFree(db, v.name!);
  const [row] = await db
    .insert(filters)
    .values({ ...v, name: v.name!, system: true, public: false, userId: null })
    .returning();
  return row!;
}

export async function editSystemFilter(db: Database, id: number, input: SystemFilterInput): Promise<FilterRow> {
  const [existing] = await db.select().from(filters).where(eq(filters.id, id));
  if (!existing) throw new AdminError(`no filter with id ${id}`);
  if (!existing.system) throw new AdminError(`filter ${id} is not a system filter`);
  const v = await values(db, input);
  if (Object.keys(v).length === 0) throw new AdminError('nothing to change: give at least one option');
  if (v.name !== undefined) await assertNameFree(db, v.name, id);
  const [row] = await db
    .update(filters)
    .set({ ...v, updatedAt: sql`now()` })
    .where(eq(filters.id, id))
    .returning();
  return row!;
}

export interface FilterListing extends FilterRow {
  hiddenTags: string[];
  spoileredTags: string[];
}

export async function listFilters(db: Database, opts: { system?: boolean } = {}): Promise<FilterListing[]> {
  const rows = await db
    .select()
    .from(filters)
    .where(opts.system ? eq(filters.system, true) : undefined)
    .orderBy(asc(filters.id));
  const ids = [...new Set(rows.flatMap((r) => [...r.hiddenTagIds, ...r.spoileredTagIds]))];
  const names = new Map<number, string>();
  if (ids.length > 0) {
    for (const t of await db.select({ id: tags.id, name: tags.name }).from(tags).where(inArray(tags.id, ids))) names.set(t.id, t.name);
  }
  const label = (id: number) => names.get(id) ?? `#${id}`;
  return rows.map((r) => ({ ...r, hiddenTags: r.hiddenTagIds.map(label), spoileredTags: r.spoileredTagIds.map(label) }));
}
