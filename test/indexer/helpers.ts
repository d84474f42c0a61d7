import { expect } from 'vitest';

/** Retry `check` until it passes or `ms` elapse; rethrows the last failure. */
export async function eventually(check: () => Promise<void> | void, ms = 1000, step = 20): Promise<number> {
  const started = Date.now();
  for (;;) {
    try {
      await check();
      return Date.now() - started;
    } catch (err) {
      if (Date.now() - started > ms) throw err;
      await new Promise((r) => setTimeout(r, step));
    }
  }
}

export function expectDefined<T>(v: T | undefined | null): T {
  expect(v).toBeDefined();
  expect(v).not.toBeNull();
  return v as T;
}
