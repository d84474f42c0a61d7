/** API keys: how they are made and stored, and which user a key names. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { apiKeys, users } from '../../db/schema/index.js';
import type { UserRow } from './types.js';

/**
 * Keys are 32 random bytes, base64url (43 characters), like Philomena's authentication tokens.
 * One in 64 would begin with "-", which a command line reads as an option (`admin key revoke
 * -Ab3…`); such keys are drawn again.
 */
export function generateApiKey(): { key: string; hash: string; prefix: string } {
  let key = randomBytes(32).toString('base64url');
  while (key.startsWith('-')) key = randomBytes(32).toString('base64url');
  return { key, hash: hashApiKey(key), prefix: key.slice(0, 6) };
}

/** Keys are stored only as SHA-256 hashes: a leaked table does not leak usable keys. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * The active user a key belongs to, or undefined. The lookup is by hash (an index probe whose
 * timing does not depend on how much of a guess matches); the final comparison is constant-time.
 */
export async function findUserByApiKey(db: Database, key: string | undefined): Promise<UserRow | undefined> {
  if (!key || key.length > 200) return undefined;
  const hash = hashApiKey(key);
  const rows = await db
    .select({ user: users, keyHash: apiKeys.keyHash })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt), isNull(users.deletedAt)))
    .limit(1);
  const row = rows[0];
  if (!row) return undefined;
  const a = Buffer.from(row.keyHash, 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b) ? row.user : undefined;
}

/** Whether a valid, unrevoked key belongs to a deactivated user (`findUserByApiKey` skips those). */
export async function isDeactivatedKey(db: Database, key: string): Promise<boolean> {
  const rows = await db
    .select({ deletedAt: users.deletedAt })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.keyHash, hashApiKey(key)), isNull(apiKeys.revokedAt)))
    .limit(1);
  return rows[0]?.deletedAt != null;
}
