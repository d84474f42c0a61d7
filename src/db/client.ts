import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres, { type Sql } from 'postgres';
import * as schema from './schema/index.js';
import { startEmbeddedPostgres, type EmbeddedPostgres, type PostgresRole } from './embedded-postgres.js';
import { runMigrations } from './migrate.js';
import { StallGuard, type StallGuardOptions } from './stall-guard.js';

export type Database = ReturnType<typeof createDatabase>;

/**
 * The postgres.js client under a database, or under a transaction passed where a database is
 * expected (a dump reads through the API's loaders inside one), for raw SQL on hot paths.
 */
export function sqlClientOf(db: Database): Sql {
  const client = (db as { $client?: Sql }).$client ?? (db as unknown as { session?: { client?: Sql } }).session?.client;
  if (client === undefined) throw new Error('no postgres.js client under this database or transaction');
  return client;
}

export interface PoolOptions {
  max?: number;
  /** Give up connecting after this many seconds (postgres.js's default: 30). */
  connectTimeoutSeconds?: number;
  /** PostgreSQL's `statement_timeout` for the pool's sessions (none by default). */
  statementTimeoutMs?: number;
  /**
   * The `statement_timeout` inside the pool's transactions (0: none), set with `SET LOCAL` as each
   * begins. The session's timeout is meant for reads; a transaction is a write, which may wait on
   * row and advisory locks and, at commit, on the change log's commit order behind a long import,
   * and should not be cut off after the session's short bound.
   */
  transactionStatementTimeoutMs?: number;
  /**
   * Keep each connection open for as long as it works (postgres.js closes one after 30 to 60
   * minutes by default): a session-scoped advisory lock lives as long as its connection.
   */
  keepConnections?: boolean;
  /**
   * Watch the pool's connections for a server that stops answering (`stall-guard.ts`): what waits
   * on it then fails with `DATABASE_UNRESPONSIVE` instead of hanging. Reconnecting after a failure
   * then waits 50 ms, not postgres.js's backoff of up to 20 s, which left queued queries hanging
   * long after the database was back.
   */
  stallGuard?: StallGuardOptions;
}

/** A Drizzle database over a postgres.js pool. */
export function createDatabase(url: string, options: PoolOptions = {}) {
  const guard = options.stallGuard && new StallGuard(url, options.stallGuard);
  const client = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    // int8 values (count(*), bigserial ids) fit in a JS number at our sizes.
    types: { int8: { to: 20, from: [20], serialize: (v: number) => String(v), parse: (v: string) => Number(v) } },
    ...(options.connectTimeoutSeconds !== undefined ? { connect_timeout: options.connectTimeoutSeconds } : {}),
    ...(options.keepConnections ? { max_lifetime: null, idle_timeout: 0 } : {}),
    ...(guard ? { socket: guard.socket, backoff: () => 0.05 } : {}),
    connection: {
      application_name: 'tagwise',
      ...(options.statementTimeoutMs !== undefined ? { statement_timeout: options.statementTimeoutMs } : {}),
    },
  });
  if (guard) {
    const end = client.end.bind(client);
    client.end = async (endOptions) => {
      await end(endOptions);
      await guard.close();
    };
  }
  const db = drizzle(client, { schema, casing: 'snake_case' });
  const writeTimeout = options.transactionStatementTimeoutMs;
  if (writeTimeout !== undefined) {
    const begin = db.transaction.bind(db);
    db.transaction = (work, config) =>
      begin(async (tx) => {
        await tx.execute(sql.raw(`set local statement_timeout = ${Math.max(0, Math.trunc(writeTimeout))}`));
        return work(tx);
      }, config);
  }
  return db;
}

export interface DatabaseHandle {
  db: Database;
  url: string;
  embedded: boolean;
  /** The embedded server when this process is a service (to supervise it). */
  server?: EmbeddedPostgres;
  /** Close the pool and, if this process owns the embedded server, stop it. */
  close(): Promise<void>;
}

/**
 * Connect to `DATABASE_URL` if set, else start (or join) the embedded server under `dataDir`;
 * then apply migrations. The same code path serves both. Whatever happens, a tool never stops a
 * server a service uses (`embedded-ownership.ts`).
 */
export async function openDatabase(opts: {
  databaseUrl?: string;
  dataDir: string;
  max?: number;
  log?: (m: string) => void;
  /** `service` for the server process, which supervises an embedded PostgreSQL; `tool` (the default) for CLIs. */
  role?: PostgresRole;
}): Promise<DatabaseHandle> {
  let embedded: EmbeddedPostgres | undefined;
  let url = opts.databaseUrl;
  const role = opts.role ?? 'tool';
  if (!url) {
    embedded = await startEmbeddedPostgres(opts.dataDir, opts.log, role);
    url = embedded.url;
  }
  const db = createDatabase(url, { max: opts.max });
  try {
    await runMigrations(db);
  } catch (err) {
    await db.$client.end({ timeout: 5 });
    await embedded?.stop();
    throw err;
  }
  return {
    db,
    url,
    embedded: embedded !== undefined,
    ...(embedded && role === 'service' ? { server: embedded } : {}),
    close: async () => {
      await db.$client.end({ timeout: 5 });
      await embedded?.stop();
    },
  };
}
