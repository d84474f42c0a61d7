/**
 * The typed Hono environment every route shares: dependencies, the caller, the current filter and
 * the cache policy a route chose.
 */
import type { Context } from 'hono';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import type { MediaStorage } from '../../media/storage.js';
import type { Metrics } from '../../observability/metrics.js';
import type { SearchEngine } from '../../search/engine.js';
import type { ClientGate, RequestLimiter } from '../../limits/index.js';
import type { FfmpegOptions } from '../../media/ffmpeg.js';
import type { LiveTagIndex } from '../../contexts/tags/autocomplete-index.js';
import type { Tarpit } from '../server/tarpit.js';

import type { ReadCaches } from '../../caches/read-caches.js';
import type { RequestLogger } from './request-logger.js';
import type { Live } from '../live/types.js';
import type { FilterRow } from '../../contexts/filters/types.js';
import type { UserRow } from '../../contexts/users/types.js';

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

/** Settings of the submission route (`POST /images`) that tests and the service may change. */
export interface UploadOptions {
  /** Largest accepted file in bytes (default 131,072,000, the reference's limit). */
  maxBytes?: number;
  /** ffprobe/ffmpeg settings for WebM analysis. */
  ffmpeg?: FfmpegOptions;
  /** Time limit of one download (default 60 s). */
  fetchTimeoutMs?: number;
}

/**
 * What the process brings to the app (`composeApp` in compose.ts builds the rest from it): the
 * settings, the request pool and the engine, and what only the process knows. A part given here
 * is used as it is, so that the service and a test can share one with something else.
 */
export interface AppParts {
  config: Config;
  /** The pool requests use (the service's fails fast while the database is unreachable). */
  db: Database;
  engine: SearchEngine;
  /**
   * The pool of work that is not a request's (loading the autocomplete index, following the
   * change log for the live service), which may take longer than a request's statement timeout;
   * default `db`.
   */
  backgroundDb?: Database;
  /** Defaults to the console for errors, and no request lines. */
  logger?: AppLogger | Logger;
  /** The process's state for `/readyz`; absent, only the database, engine and outbox lag count. */
  readiness?: () => ReadinessState;
  /** Aborted when the process begins to stop: requests held on purpose (the tarpit) are answered at once. */
  shutdownSignal?: AbortSignal;
  /**
   * How far the indices lag behind the database (`Indexer.lag()` of an in-process indexer, which
   * leaves out changes applied but waiting for the engine's flush); default: the whole outbox.
   */
  indexerLag?: () => Promise<IndexerLag>;
  upload?: UploadOptions;
  metrics?: Metrics;
  caches?: ReadCaches;
  storage?: MediaStorage;
  live?: Live;
}

/** Everything the app's routes and middleware use, each built once per app by `composeApp`. */
export interface AppDeps extends Omit<AppParts, 'backgroundDb' | 'metrics' | 'caches' | 'storage' | 'live' | 'upload'> {
  /** Prometheus metrics served at `/metrics`. */
  metrics: Metrics;
  /** Caches of rendered records and of the caller's state, emptied by the change feed. */
  caches: ReadCaches;
  /** Where media lives (images, assets, dumps). */
  storage: MediaStorage;
  /** The firehose and live searches over the change log. */
  live: Live;
  /**
   * The request limits of every route, submissions included (their `upload` budget), with the
   * ban cache of `caches.bans`; null when limits are off (`RATE_LIMITS=off`): bans still count.
   */
  limiter: RequestLimiter | null;
  /** Where repeat refusals wait (`server/tarpit.ts`), released by `shutdownSignal`. */
  tarpit: Tarpit;
  /** The per-client bound of reverse searches (`REVERSE_SEARCH_CONCURRENCY`, `REVERSE_SEARCH_RATE`). */
  reverseGate: ClientGate;
  /** The tag index of `/autocomplete/tags` and of "did you mean" (the one loaded at start). */
  autocomplete: LiveTagIndex;
  upload: UploadOptions;
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
