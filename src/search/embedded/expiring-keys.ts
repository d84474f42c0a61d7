/**
 * Keys that expire, in the order they were added: the answers kept for a second only (a query
 * holding a date resolved against the clock, `SearchRequest.keepMs`) leave as soon as their time
 * is up, instead of staying until the cache is full, where every write would still check them.
 *
 * A queue, not a heap: every such key is given the same lifetime, so the first added is the
 * first to expire; one given longer than those after it only holds them back until it expires.
 */
export class ExpiringKeys {
  private keys: string[] = [];
  private times: number[] = [];
  private head = 0;

  get size(): number {
    return this.keys.length - this.head;
  }

  /** `key` expires at `at`. */
  add(key: string, at: number): void {
    this.keys.push(key);
    this.times.push(at);
  }

  /** Take out the keys expired by `now`, from the first added; `expire` is given each with its time. */
  takeExpired(now: number, expire: (key: string, at: number) => void): void {
    while (this.head < this.keys.length && this.times[this.head]! <= now) {
      const key = this.keys[this.head]!;
      const at = this.times[this.head]!;
      this.head++;
      expire(key, at);
    }
    // the passed part is dropped once it is most of the arrays
    if (this.head > 64 && this.head * 2 > this.keys.length) {
      this.keys = this.keys.slice(this.head);
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}
