/**
 * The typed Hono environment every route shares: dependencies, the caller, the current filter and
 * the cache policy a route chose.
 */
import type { Context } from 'hono';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { filters } from '../db/schema/index.js';
import type { SearchEngine } from '../search/engine.js';
import type { KeyUser } from '../users/api-keys.js';

/** Where errors are reported; a pino logger fits. */
export interface AppLogger {
  error(obj: unknown, msg?: string): void;
  warn?(obj: unknown, msg?: string): void;
}

export interface AppDeps {
  config: Config;
  db: Database;
  engine: SearchEngine;
  /** Defaults to the console. */
  logger?: AppLogger;
}

export type FilterRow = typeof filters.$inferSelect;
export type UserRow = KeyUser;

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
}

export interface AppEnv {
  Variables: AppVariables;
}

export type AppContext = Context<AppEnv>;
