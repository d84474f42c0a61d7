/**
 * `GET /changes?since=CURSOR&limit=N`: the change feed for mirrors. The public records that
 * changed, in commit order, each with the cursor to continue after it. A transaction's rows about
 * one record are folded into one entry: `created`, `hidden`, `deleted` and `merged` say so,
 * anything else (fields, tags, sources, description, unhiding, thumbnails) is `updated`. A mirror
 * re-fetches what changed through the API; with the nightly dumps it stays exact without
 * crawling. A cursor older than the retention, or beyond the newest change, is 410 with the head
 * and the dump to restart from.
 */
import { Hono } from 'hono';
import type { z } from 'zod';
import { changesAfter } from '../../contexts/changes/log.js';
import type { ChangeRow } from '../../contexts/changes/types.js';
import type { AppEnv } from '../env/context.js';
import { unusableCursorAnswer } from '../live/cursor.js';
import { ChangeActions, ChangeKinds, ChangesQuery, type ChangesResponse, type Change } from '../../api/schemas/live.js';
import { validQuery } from '../request/validate.js';
import { formatTime } from '../../api/views/time.js';

type ChangeJson = z.output<typeof Change>;
type Action = (typeof ChangeActions)[number];

const publicAction = (change: string): Action => ((ChangeActions as readonly string[]).includes(change) ? (change as Action) : 'updated');

/** One entry per record per transaction: its most telling change, at its last row's cursor. */
export function foldChanges(rows: readonly ChangeRow[]): ChangeJson[] {
  const out: ChangeJson[] = [];
  let i = 0;
  while (i < rows.length) {
    const xact = rows[i]!.xact;
    const byRecord = new Map<string, ChangeJson>();
    for (; i < rows.length && rows[i]!.xact === xact; i++) {
      const row = rows[i]!;
      if (!(ChangeKinds as readonly string[]).includes(row.kind)) continue;
      const key = `${row.kind}:${row.recordId}`;
      const action = publicAction(row.change);
      const entry = byRecord.get(key);
      const keep = entry !== undefined && action === 'updated' ? entry.change : action;
      byRecord.delete(key); // re-inserted: entries are ordered by their last row
      byRecord.set(key, {
        cursor: row.seq,
        kind: row.kind as ChangeJson['kind'],
        id: row.recordId,
        change: entry?.change === 'created' && keep !== 'deleted' ? 'created' : keep,
        ...(row.change === 'merged' ? { duplicate_of: Number(row.detail?.duplicate_of) } : entry?.duplicate_of !== undefined ? { duplicate_of: entry.duplicate_of } : {}),
        at: formatTime(row.createdAt),
      });
    }
    out.push(...byRecord.values());
  }
  return out;
}

export function changeRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/changes', validQuery(ChangesQuery), async (c) => {
    const { since, limit } = c.req.valid('query');
    if (since !== undefined) {
      const unusable = await unusableCursorAnswer(c, since);
      if (unusable) return unusable;
    }
    const rows = await changesAfter(c.get('deps').db, since ?? 0, limit);
    const cursor = rows.length > 0 ? rows[rows.length - 1]!.seq : (since ?? 0);
    const body: z.output<typeof ChangesResponse> = { changes: foldChanges(rows), cursor, more: rows.length === limit };
    c.header('Cache-Control', 'no-store');
    return c.json(body);
  });
  return app;
}
