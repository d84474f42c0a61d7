/** Counts rejected requests per identity in a sliding window, to tell a burst from abuse. */
export class ViolationCounter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly windowMs: number,
    private readonly maxIdentities = 100_000,
  ) {}

  /** Record one violation; returns how many fell inside the window, this one included. */
  record(identity: string, nowMs = Date.now()): number {
    const since = nowMs - this.windowMs;
    const list = (this.hits.get(identity) ?? []).filter((t) => t > since);
    list.push(nowMs);
    this.hits.delete(identity);
    if (this.hits.size >= this.maxIdentities) this.hits.delete(this.hits.keys().next().value!);
    this.hits.set(identity, list);
    return list.length;
  }

  reset(identity: string): void {
    this.hits.delete(identity);
  }
}
