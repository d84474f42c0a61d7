/**
 * Positions in the change log as clients hold them (the change feed's `since`, a live search's
 * `Last-Event-ID`). One older than what the log keeps cannot be continued without loss; one
 * beyond the newest position was never given by this log (a mangled cursor, or a database
 * restored from before it): continuing from it would silently skip every change up to it. Both
 * are answered 410 with the newest position (`head`), the newest nightly dump, and the position
 * to continue from after loading it.
 */
import type { z } from 'zod';
import { changeSeqBefore, latestChangeSeq, prunedThrough } from '../../contexts/changes/log.js';
import { readLatest } from '../../dumps/layout.js';
import type { AppContext } from '../env/context.js';
import type { CursorExpiredBody } from '../../api/schemas/live.js';

type Body = z.output<typeof CursorExpiredBody>;

/** The feed restarts a minute before the dump's snapshot: applying a change twice is harmless. */
const DUMP_OVERLAP_MS = 60_000;

/** The newest dump a client can load and continue after, or null. */
async function resumableDump(c: AppContext, horizon: number): Promise<Body['dump']> {
  const { db, config } = c.get('deps');
  const latest = await readLatest(c.get('deps').storage.area('dumps'));
  if (latest === null) return null;
  const taken = new Date(latest.created_at);
  const oldestKept = Date.now() - config.changeLogRetentionDays * 86_400_000;
  // A dump older than the retention cannot be continued from either.
  if (taken.getTime() - DUMP_OVERLAP_MS <= oldestKept) return null;
  const cursor = Math.max(await changeSeqBefore(db, new Date(taken.getTime() - DUMP_OVERLAP_MS)), horizon);
  return { name: latest.name, url: `${config.baseUrl}/dumps/${latest.name}/`, cursor };
}

/** null when `since` can be continued, else the 410 answer. */
export async function unusableCursorAnswer(c: AppContext, since: number): Promise<Response | null> {
  const { db } = c.get('deps');
  const [horizon, newest] = await Promise.all([prunedThrough(db), latestChangeSeq(db)]);
  // Pruning may have emptied the log: the horizon is then the newest position given.
  const head = Math.max(horizon, newest);
  if (since >= horizon && since <= head) return null;
  const error =
    since < horizon
      ? 'cursor is older than the change log keeps; reload from a dump'
      : `cursor is beyond the newest change (${head}): not a position of this log; reload from a dump`;
  const body: Body = { error, dump: await resumableDump(c, horizon), head };
  return c.json(body, 410);
}
