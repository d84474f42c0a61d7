/**
 * Counts a caller's refused requests, in PostgreSQL so that every API process counts into the
 * same window (`countSharedViolations`): a caller spread over N processes is banned after
 * `banAfter` refusals, not N times as many, and exactly one process learns that the ban is due.
 * The window starts with a caller's first refusal and runs `windowSeconds`. A caller is counted
 * at most `banAfter` times per window before its ban answers it from the ban cache, so refusals
 * cost a bounded number of round trips. When PostgreSQL cannot be reached nothing is counted (no
 * ban could be stored either), and it is not tried again for `RETRY_STORE_MS`.
 */
import { countSharedViolations } from '../contexts/limits/shared-limits.js';
import type { Database } from '../db/client.js';
import { RETRY_STORE_MS } from './shared-buckets.js';

export class SharedViolations {
  private storeDownUntil = 0;

  constructor(
    private readonly db: Database,
    readonly windowSeconds: number,
    readonly banAfter: number,
    private readonly onError?: (err: unknown) => void,
  ) {}

  /** Record one violation; true when it is the one that makes the caller due for a ban. */
  async record(identity: string): Promise<boolean> {
    if (Date.now() < this.storeDownUntil) return false;
    try {
      return await countSharedViolations(this.db, identity, 1, this.windowSeconds, this.banAfter);
    } catch (err) {
      this.storeDownUntil = Date.now() + RETRY_STORE_MS;
      this.onError?.(err);
      return false;
    }
  }
}
