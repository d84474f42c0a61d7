/** The names and avatars that views show for the authors of comments, posts and topics. */
import { inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { users } from '../../db/schema/index.js';
import type { AuthorUser } from './types.js';

/** Name and avatar of the given users, by id. */
export async function loadAuthors(db: Database, ids: Iterable<number | null>): Promise<Map<number, AuthorUser>> {
  const unique = [...new Set([...ids].filter((id): id is number => id !== null))];
  if (unique.length === 0) return new Map();
  const rows = await db
    .select({ id: users.id, name: users.name, avatar: users.avatar })
    .from(users)
    .where(inArray(users.id, unique));
  return new Map(rows.map((r) => [r.id, r]));
}
