/**
 * One process per database keeps the embedded engine. Its index lives in that process's memory
 * and files, and the outbox rows it applies are deleted once its files hold them: a second
 * process on the same database would take rows the first never sees (and the reverse), and each
 * would answer searches from an index missing the other's share. So the process that runs the
 * embedded engine holds a session-scoped advisory lock (ENGINE_OWNER_LOCK) on a connection of its
 * own for as long as it lives, and a second one is refused at start with a message naming the
 * holder. A paused or slow owner keeps its connection, hence the lock: the second stays refused.
 *
 * A lock lives as long as its connection. If the connection is lost (the database restarted),
 * the owner takes the lock again on the new one; if another process took it meanwhile, the owner
 * is told (`onLost`) and must stop, since both have applied rows the other has not.
 */
import { createDatabase, type Database } from '../src/db/client.js';
import { ENGINE_OWNER_LOCK } from './locks.js';

/** Another process already keeps the embedded engine of this database. */
export class EngineOwnedElsewhere extends Error {
  override name = 'EngineOwnedElsewhere';
}

export interface EngineOwnership {
  /** Release the lock and close its connection. */
  release(): Promise<void>;
}

export interface OwnershipOptions {
  /** How often the lock is checked (default 5 s). */
  checkMs?: number;
  /** The lock was lost to another process. */
  onLost: (err: EngineOwnedElsewhere) => void;
}

const TAKE = 'select pg_try_advisory_lock($1::bigint) as ok';

/** Whether this session holds the lock (after a reconnect it does not). */
const HELD = `select exists (
    select 1 from pg_locks where locktype = 'advisory' and granted and pid = pg_backend_pid()
      and ((classid::bigint << 32) | objid::bigint) = $1::bigint) as held`;

/** The holder's address and application, for the refusal's message (this database's: pg_locks shows the whole cluster). */
const HOLDER = `select a.pid, a.client_addr::text as addr, a.application_name as app, a.backend_start::text as since
    from pg_locks l join pg_stat_activity a on a.pid = l.pid
    where l.locktype = 'advisory' and l.granted and a.datname = current_database() and ((l.classid::bigint << 32) | l.objid::bigint) = $1::bigint
    limit 1`;

async function refusal(db: Database): Promise<EngineOwnedElsewhere> {
  const [holder] = await db.$client
    .unsafe<{ pid: number; addr: string | null; app: string; since: string }[]>(HOLDER, [ENGINE_OWNER_LOCK])
    .catch(() => []);
  const who = holder ? ` (PostgreSQL backend ${holder.pid}, client ${holder.addr ?? 'local socket'}, connected since ${holder.since})` : '';
  return new EngineOwnedElsewhere(
    `another Tagwise process already runs the embedded search engine on this database${who}. ` +
      'Only one process may keep the embedded engine per database: stop the other one, or set OPENSEARCH_URL to share an OpenSearch cluster between several processes.',
  );
}

/** Take the embedded engine's lock for this process, or throw `EngineOwnedElsewhere`. */
export async function claimEngineOwnership(url: string, options: OwnershipOptions): Promise<EngineOwnership> {
  const db = createDatabase(url, { max: 1, keepConnections: true });
  const [taken] = await db.$client.unsafe<{ ok: boolean }[]>(TAKE, [ENGINE_OWNER_LOCK]).catch(async (err: unknown) => {
    await db.$client.end({ timeout: 1 });
    throw err;
  });
  if (!taken?.ok) {
    const err = await refusal(db);
    await db.$client.end({ timeout: 1 });
    throw err;
  }
  /** Released, or lost: no more checks. */
  let released = false;
  let ended = false;
  let checking = false;
  const check = async () => {
    if (checking || released) return;
    checking = true;
    try {
      const [row] = await db.$client.unsafe<{ held: boolean }[]>(HELD, [ENGINE_OWNER_LOCK]);
      if (row?.held || released) return;
      const [again] = await db.$client.unsafe<{ ok: boolean }[]>(TAKE, [ENGINE_OWNER_LOCK]);
      if (!again?.ok && !released) {
        released = true;
        clearInterval(timer);
        options.onLost(await refusal(db));
      }
    } catch {
      // the database is unreachable: try again at the next check
    } finally {
      checking = false;
    }
  };
  const timer = setInterval(() => void check(), options.checkMs ?? 5_000);
  timer.unref();
  return {
    async release() {
      if (ended) return;
      ended = true;
      released = true;
      clearInterval(timer);
      await db.$client.unsafe('select pg_advisory_unlock($1::bigint)', [ENGINE_OWNER_LOCK]).catch(() => {});
      await db.$client.end({ timeout: 5 });
    },
  };
}
