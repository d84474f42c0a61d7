/** User accounts: finding a user by name, creating one, changing a role. */
import { eq, sql } from 'drizzle-orm';
import { slugify } from '../../../grammar/index.js';
import { announceChanges } from '../../db/record-change-feed.js';
import type { Database } from '../../db/client.js';
import { roles, users, type Role } from '../../db/schema/index.js';
import { AdminError } from '../errors.js';
import type { UserRow } from './types.js';

export function parseRole(value: string): Role {
  if (!(roles as readonly string[]).includes(value)) {
    throw new AdminError(`unknown role ${JSON.stringify(value)} (one of ${roles.join(', ')})`);
  }
  return value as Role;
}

/** The user with exactly this name (or, failing that, this name in another case). */
export async function findUser(db: Database, name: string): Promise<UserRow> {
  const [exact] = await db.select().from(users).where(eq(users.name, name));
  if (exact) return exact;
  const folded = await db.select().from(users).where(sql`lower(${users.name}) = lower(${name})`);
  if (folded.length === 1 && folded[0]) return folded[0];
  throw new AdminError(`unknown user ${JSON.stringify(name)}`);
}

export interface CreateUserInput {
  name: string;
  role?: Role;
  email?: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export async function createUser(db: Database, input: CreateUserInput): Promise<UserRow> {
  const name = input.name.trim();
  if (name === '') throw new AdminError('a user name may not be blank');
  if (name.length > 50) throw new AdminError('a user name may have at most 50 characters');
  if (input.email !== undefined && !EMAIL.test(input.email)) throw new AdminError(`invalid email ${JSON.stringify(input.email)}`);
  const slug = slugify(name);
  const clash = await db
    .select({ name: users.name })
    .from(users)
    .where(sql`lower(${users.name}) = lower(${name}) or ${users.slug} = ${slug}`);
  if (clash[0]) throw new AdminError(`the name ${JSON.stringify(name)} is taken (by ${JSON.stringify(clash[0].name)})`);
  const [row] = await db
    .insert(users)
    .values({ name, slug, role: input.role ?? 'user', email: input.email ?? null })
    .returning();
  if (!row) throw new AdminError('the user was not created');
  return row;
}

/** Mark a user verified: their uploads are approved at once from now on (reference §8.3). */
export async function verifyUser(db: Database, name: string): Promise<UserRow> {
  const user = await findUser(db, name);
  const [row] = await db.update(users).set({ verified: true, updatedAt: sql`now()` }).where(eq(users.id, user.id)).returning();
  if (!row) throw new AdminError(`unknown user ${JSON.stringify(name)}`);
  return row;
}

export async function setRole(db: Database, name: string, role: Role): Promise<UserRow> {
  const user = await findUser(db, name);
  const row = await db.transaction(async (tx) => {
    const [updated] = await tx.update(users).set({ role, updatedAt: sql`now()` }).where(eq(users.id, user.id)).returning();
    if (updated) await announceChanges(tx, [{ kind: 'user', id: updated.id }]);
    return updated;
  });
  if (!row) throw new AdminError(`unknown user ${JSON.stringify(name)}`);
  return row;
}
