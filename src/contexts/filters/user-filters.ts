/**
 * A user's own filters: creating and editing them through the API with their key. What a filter
 * may hold is checked as the site checks it: a name, tag ids that exist (an alias stands for its
 * target), and complex expressions that compile for that user (search/filter-check.ts). A filter
 * that is not the user's own is not theirs to edit, whatever their role: that is the admin CLI's.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { filters, tags } from '../../db/schema/index.js';
import type { UserRow } from '../users/types.js';
import { complexProblem } from '../search/filter-check.js';
import type { FilterRow } from './types.js';

/** A filter's fields as the API names them; each is optional on an edit. */
export interface UserFilterInput {
  name?: string;
  description?: string;
  public?: boolean;
  hiddenTagIds?: number[];
  spoileredTagIds?: number[];
  hiddenComplex?: string;
  spoileredComplex?: string;
}

/** Why a filter cannot be saved, naming the field (`hidden_complex: …`). */
export class FilterInputError extends Error {
  override readonly name = 'FilterInputError';
}

const MAX_NAME = 100;
const MAX_DESCRIPTION_BYTES = 10_000;

/** Tag ids as stored: each existing, aliases replaced by their targets, each once. */
async function storedTagIds(db: Database, field: string, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db.select({ id: tags.id, aliasedTagId: tags.aliasedTagId }).from(tags).where(inArray(tags.id, [...new Set(ids)]));
  const byId = new Map(rows.map((r) => [r.id, r.aliasedTagId ?? r.id]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length > 0) throw new FilterInputError(`${field}: no tag has id ${missing.join(', ')}`);
  return [...new Set(ids.map((id) => byId.get(id)!))];
}

async function checkedComplex(user: UserRow, field: string, q: string): Promise<string> {
  const problem = await complexProblem(q, { role: user.role, userId: user.id });
  if (problem !== null) throw new FilterInputError(`${field}: ${problem}`);
  return q;
}

async function columns(db: Database, user: UserRow, input: UserFilterInput): Promise<Partial<typeof filters.$inferInsert>> {
  const out: Partial<typeof filters.$inferInsert> = {};
  if (input.name !== undefined) {
    const name = input.name.trim();
    if (name === '' || name.length > MAX_NAME) throw new FilterInputError(`name: 1 to ${MAX_NAME} characters`);
    out.name = name;
  }
  if (input.description !== undefined) {
    if (Buffer.byteLength(input.description, 'utf8') > MAX_DESCRIPTION_BYTES) throw new FilterInputError(`description: at most ${MAX_DESCRIPTION_BYTES} bytes`);
    out.description = input.description;
  }
  if (input.public !== undefined) out.public = input.public;
  if (input.hiddenTagIds !== undefined) out.hiddenTagIds = await storedTagIds(db, 'hidden_tag_ids', input.hiddenTagIds);
  if (input.spoileredTagIds !== undefined) out.spoileredTagIds = await storedTagIds(db, 'spoilered_tag_ids', input.spoileredTagIds);
  if (input.hiddenComplex !== undefined) out.hiddenComplexStr = await checkedComplex(user, 'hidden_complex', input.hiddenComplex);
  if (input.spoileredComplex !== undefined) out.spoileredComplexStr = await checkedComplex(user, 'spoilered_complex', input.spoileredComplex);
  return out;
}

export async function createUserFilter(db: Database, user: UserRow, input: UserFilterInput): Promise<FilterRow> {
  if (input.name === undefined) throw new FilterInputError('name: required');
  const values = await columns(db, user, input);
  const [row] = await db
    .insert(filters)
    .values({ ...values, name: values.name!, system: false, userId: user.id })
    .returning();
  return row!;
}

/** The edited filter, or null when `id` is not one of the user's own filters. */
export async function updateUserFilter(db: Database, user: UserRow, id: number, input: UserFilterInput): Promise<FilterRow | null> {
  const own = and(eq(filters.id, id), eq(filters.userId, user.id), eq(filters.system, false));
  const [existing] = await db.select({ id: filters.id }).from(filters).where(own);
  if (existing === undefined) return null;
  const values = await columns(db, user, input);
  const [row] = await db
    .update(filters)
    .set({ ...values, updatedAt: new Date() })
    .where(own)
    .returning();
  return row ?? null;
}
