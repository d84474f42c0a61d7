/**
 * The typed Hono environment every route shares: dependencies, the caller, the current filter and
 * the cache policy a route chose.
 */
import type { Context } from 'hono';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { MediaStorage } from '../media/storage.js';
import type { Metrics } from '../observability/metrics.js';
import type { SearchEngine } from '../search/engine.js';

import type { ReadCaches } from '../caches/read-caches.js';
import type { RequestLogger } from './request-logger.js';
import type { Live } from './live/types.js';
import type { FilterRow } from '../contexts/filters/types.js';
import type { UserRow } from '../contexts/users/types.js';

/**
 * Where errors are reported; a pino logger fits. Given a pino logger, the app also writes one
 * line per request through it (see middleware/request-log.ts).
 */
export interface AppLogger {
  error(obj: unknown, msg?: string): void;
  warn?(obj: unknown, msg?: string): void;
}

/** What the process tells `/readyz` about itself (see routes/health.ts). */
export interface ReadinessState {
  /** Shutdown has begun: not ready, whatever else holds. */
  stopping: boolean;
  /**
   * The index: still building or catching up at start; `started`, this process's own (the
   * embedded engine), following; `shared`, a shared engine's (OpenSearch) caught up with the
   * outbox as it stood at start, kept up by whichever process leads (indexer/leader.ts).
   */
  indexer: 'starting' | 'started' | 'shared';
  /** Beside a shared engine: whether this process is the one following the outbox now. */
  leading?: () => boolean;
}

export interface AppDeps {
  config: Config;
  db: Database;
  engine: SearchEngine;
  /** Defaults to the console for errors, and no request lines. */
  logger?: AppLogger | Logger;
  /** Prometheus metrics served at `/metrics`; one is created per app when absent. */
  metrics?: Metrics;
  /** The process's state for `/readyz`; absent, only the database, engine and outbox lag count. */
  readiness?: () => ReadinessState;
  /** Aborted when the process begins to stop: requests held on purpose (the tarpit) are answered at once. */
  shutdownSignal?: AbortSignal;
  /**
   * How far the indices lag behind the database (`Indexer.lag()` of an in-process indexer, which
   * leaves out changes applied but waiting for the engine's flush); default: the whole outbox.
   */
  indexerLag?: () => Promise<IndexerLag>;
  /** Caches of image JSON and filters; `createApp` makes them when absent. */
  caches?: ReadCaches;
  /** Where media lives; default the storage of `config.storage` (see http/media-storage.ts). */
  storage?: MediaStorage;
  /** The firehose and live searches over the change log; `createApp` makes one when absent. */
  live?: Live;
}

export interface IndexerLag {
  /** Changes not applied yet. */
  pending: number;
  /** Age of the oldest, in seconds; null when none is pending. */
  oldestAgeSeconds: number | null;
}

/** How a successful answer may be cached (see middleware/cache.ts). */
export interface CachePolicy {
  /** Seconds for `max-age`. */
  maxAge: number;
  /** The answer depends on the caller (`key`): only the caller's own cache may keep it. */
  private: boolean;
}

export interface AppVariables {
  deps: AppDeps;
  /** The user of `key`, or null for anonymous callers (unknown keys are anonymous). */
  user: UserRow | null;
  /** The filter this request is seen through (loaded on first use; null if none exists at all). */
  currentFilter: () => Promise<FilterRow | null>;
  cachePolicy: CachePolicy | undefined;
  /** This request's id (`X-Request-Id`). */
  requestId: string;
  /** A logger whose lines carry this request's id. */
  log: RequestLogger;
  /** An answer made with every header it leaves with (`jsonText`): the middleware pass it on untouched. */
  completeAnswer: Response | undefined;
  /** The route to log and count this request under, when not its pattern (`route-name.ts`). */
  routeName: string | undefined;
}

export interface AppEnv {
  Variables: AppVariables;
}

export type AppContext = Context<AppEnv>;
