/**
 * Positions in the change log as clients hold them (the change feed's `since`, a live search's
 * `Last-Event-ID`): one that is older than what the log keeps cannot be continued without loss,
 * and is answered 410 with the newest nightly dump and the position to continue from after
 * loading it.
 */
import type { z } from 'zod';
import { changeSeqBefore, prunedThrough } from '../../contexts/changes/log.js';
import { readLatest } from '../../dumps/layout.js';
import { storageOf } from '../media-storage.js';
import type { AppContext } from '../context.js';
import type { CursorExpiredBody } from '../schemas/live.js';

/** The feed restarts a minute before the dump's snapshot: applying a change twice is harmless. */
const DUMP_OVERLAP_MS = 60_000;

/** null when `since` can be continued, else the 410 answer. */
export async function expiredCursorAnswer(c: AppContext, since: number): Promise<Response | null> {
  const { db, config } = c.get('deps');
  const horizon = await prunedThrough(db);
  if (since >= horizon) return null;
  const latest = await readLatest(storageOf(c.get('deps')).area('dumps'));
  let dump: z.output<typeof CursorExpiredBody>['dump'] = null;
  if (latest !== null) {
    const taken = new Date(latest.created_at);
    const oldestKept = Date.now() - config.changeLogRetentionDays * 86_400_000;
    // A dump older than the retention cannot be continued from either.
    if (taken.getTime() - DUMP_OVERLAP_MS > oldestKept) {
      const cursor = Math.max(await changeSeqBefore(db, new Date(taken.getTime() - DUMP_OVERLAP_MS)), horizon);
      dump = { name: latest.name, url: `${config.baseUrl}/dumps/${latest.name}/`, cursor };
    }
  }
  const body: z.output<typeof CursorExpiredBody> = { error: 'cursor is older than the change log keeps; reload from a dump', dump };
  return c.json(body, 410);
}
