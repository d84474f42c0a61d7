import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Ask `probe` every `everyMs` until it answers something other than `undefined` or `false`, and
 * resolve to that answer. After `timeoutMs` reject with "timed out waiting for <what>"; `what` may
 * be a function, called then, to tell what was seen instead.
 */
export async function waitUntil<T>(
  what: string | (() => string),
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs: number,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
    await sleep(everyMs);
  }
}
