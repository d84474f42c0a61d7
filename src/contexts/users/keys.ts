/** Issuing and revoking users' API keys. */
import { and, eq, isNull, like } from 'drizzle-orm';
import { announceChanges } from '../../db/record-change-feed.js';
import type { Database } from '../../db/client.js';
import { apiKeys } from '../../db/schema/index.js';
import { generateApiKey, hashApiKey } from './api-keys.js';
import { AdminError } from '../errors.js';
import { findUser } from './accounts.js';

/** Issue a new API key for a user; the clear key is returned once and never stored. */
export async function issueKey(db: Database, userName: string): Promise<{ key: string; prefix: string; userId: number }> {
  const user = await findUser(db, userName);
  if (user.deletedAt) throw new AdminError(`user ${JSON.stringify(user.name)} is deactivated`);
  const { key, hash, prefix } = generateApiKey();
  await db.transaction(async (tx) => {
    await tx.insert(apiKeys).values({ userId: user.id, keyHash: hash, prefix });
    // a key that was unknown (anonymous) now names its user
    await announceChanges(tx, [{ kind: 'user', id: user.id }]);
  });
  return { key, prefix, userId: user.id };
}

/** Minimum length of a prefix given to `revokeKey`, so a typo cannot match many keys. */
export const MIN_PREFIX = 4;

/**
 * Revoke the one active key that starts with `keyOrPrefix` (a whole key is matched by its hash).
 * Refuses when nothing or more than one key matches.
 */
export async function revokeKey(db: Database, keyOrPrefix: string): Promise<{ id: number; prefix: string }> {
  const given = keyOrPrefix.trim();
  if (given.length < MIN_PREFIX) throw new AdminError(`a key prefix needs at least ${MIN_PREFIX} characters`);
  const active = isNull(apiKeys.revokedAt);
  let rows = await db.select().from(apiKeys).where(and(active, eq(apiKeys.keyHash, hashApiKey(given))));
  if (rows.length === 0) {
    const stored = given.slice(0, 6);
    const escaped = stored.replace(/[\\%_]/g, (c) => `\\${c}`);
    rows = await db.select().from(apiKeys).where(and(active, like(apiKeys.prefix, `${escaped}%`)));
  }
  if (rows.length === 0) throw new AdminError(`no active key starts with ${JSON.stringify(given)}`);
  if (rows.length > 1) throw new AdminError(`${rows.length} active keys start with ${JSON.stringify(given)}; give more of the key or use --all NAME`);
  const row = rows[0]!;
  await db.transaction(async (tx) => {
    await tx.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, row.id));
    await announceChanges(tx, [{ kind: 'user', id: row.userId }]);
  });
  return { id: row.id, prefix: row.prefix };
}

/** Revoke every active key of a user; returns how many were revoked. */
export async function revokeAllKeys(db: Database, userName: string): Promise<number> {
  const user = await findUser(db, userName);
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.userId, user.id), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    await announceChanges(tx, [{ kind: 'user', id: user.id }]);
    return rows.length;
  });
}
