/**
 * Who searches, as plain data: the search context plans for a caller, not for an HTTP request
 * (src/http/search-caller.ts makes one of a request; a CLI or a test may make their own).
 */
import type { Role } from '../../../grammar/index.js';
import type { Database } from '../../db/client.js';
import type { Metrics } from '../../observability/metrics.js';
import type { SearchEngine } from '../../search/engine.js';
import type { FilterRow } from '../filters/types.js';
import type { UserRow } from '../users/types.js';

export interface SearchCaller {
  /** The key's user; null for an anonymous caller. */
  user: UserRow | null;
  /**
   * The caller's current filter (null: none). It may throw for a filter the caller may not use;
   * a plan asks for it after `q` is known to compile, so a bad query is answered first.
   */
  currentFilter(): Promise<FilterRow | null>;
}

/** What planning and running a search needs of the process. */
export interface SearchDeps {
  db: Database;
  engine: SearchEngine;
  /** Where a search's latency goes (`search_duration_seconds`), when there are metrics. */
  metrics?: Pick<Metrics, 'searchDuration'>;
  /** Where a filter whose hidden expression does not compile is reported (once); default the console. */
  logger?: { warn?(obj: unknown, msg?: string): void };
}

export const roleOf = (user: UserRow | null): Role => user?.role ?? 'anonymous';
