/**
 * The request limits every API process shares, kept in PostgreSQL (migration 0011): callers'
 * token buckets, their violations in a window, and the slots of a per-caller gate. Each is one
 * function call, so one round trip, under the row's (or the caller's) lock; the limiter in
 * `src/limits/` decides how rarely it needs one.
 */
import type { Database } from '../../db/client.js';

export interface TokenGrant {
  /** Tokens taken (0 when fewer than the need were there). */
  granted: number;
  /** Tokens left in the shared bucket after the grant. */
  left: number;
}

/**
 * Refill a caller's bucket, put back `returned` tokens taken earlier and not spent, and take up to
 * `want` tokens of it when at least `need` are there.
 */
export async function takeSharedTokens(
  db: Database,
  key: { identity: string; budget: string },
  bucket: { capacity: number; refillPerSecond: number },
  tokens: { need: number; want: number; returned: number },
): Promise<TokenGrant> {
  const [row] = await db.$client.unsafe<{ granted: number; tokens_left: number }[]>(
    'select granted, tokens_left from tagwise_take_tokens($1, $2, $3, $4, $5, $6, $7)',
    [key.identity, key.budget, bucket.capacity, bucket.refillPerSecond, tokens.need, tokens.want, tokens.returned],
    { prepare: true },
  );
  return { granted: Number(row?.granted ?? 0), left: Number(row?.tokens_left ?? 0) };
}

/**
 * Count `count` violations of a caller; true for exactly one call, in whichever process, the one
 * that brings its window to `banAfter` (the window then starts again).
 */
export async function countSharedViolations(db: Database, identity: string, count: number, windowSeconds: number, banAfter: number): Promise<boolean> {
  const [row] = await db.$client.unsafe<{ ban: boolean }[]>('select tagwise_count_violations($1, $2, $3, $4) as ban', [identity, count, windowSeconds, banAfter], {
    prepare: true,
  });
  return row?.ban === true;
}

/** Take one of a caller's `concurrency` slots behind `gate` for at most `holdSeconds`; false when all are held. */
export async function enterSharedGate(
  db: Database,
  slot: { gate: string; identity: string; token: string },
  concurrency: number,
  holdSeconds: number,
): Promise<boolean> {
  const [row] = await db.$client.unsafe<{ entered: boolean }[]>(
    'select tagwise_enter_gate($1, $2, $3, $4, $5) as entered',
    [slot.gate, slot.identity, slot.token, concurrency, holdSeconds],
    { prepare: true },
  );
  return row?.entered === true;
}

export async function leaveSharedGate(db: Database, slot: { gate: string; identity: string; token: string }): Promise<void> {
  await db.$client.unsafe('delete from client_gate_slots where gate = $1 and identity = $2 and token = $3', [slot.gate, slot.identity, slot.token], {
    prepare: true,
  });
}

/**
 * Forget what no longer limits anyone: buckets of `budget` refilled to the full since their last
 * use (`fullAfterSeconds`), windows of violations past, slots whose hold ran out.
 */
export async function pruneSharedLimits(db: Database, budget: string, fullAfterSeconds: number, violationWindowSeconds: number): Promise<void> {
  await db.$client.unsafe(
    `with b as (delete from rate_limit_buckets where budget = $1 and updated_at < clock_timestamp() - make_interval(secs => $2))
     , v as (delete from rate_limit_violations where window_start < clock_timestamp() - make_interval(secs => $3))
     delete from client_gate_slots where expires_at <= clock_timestamp()`,
    [budget, fullAfterSeconds, violationWindowSeconds],
  );
}
