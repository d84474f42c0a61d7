import { describe, expect, it } from 'vitest';
import { orIf } from '../../src/lib/or-if.js';

const isGone = (error: unknown) => error instanceof Error && error.message === 'gone';

describe('orIf', () => {
  it('answers what the operation answers', async () => {
    expect(await orIf(async () => 7, isGone, null)).toBe(7);
  });
  it('answers the fallback for an expected error', async () => {
    expect(await orIf(() => Promise.reject(new Error('gone')), isGone, false)).toBe(false);
  });
  it('lets any other error through', async () => {
    await expect(orIf(() => Promise.reject(new Error('disk on fire')), isGone, null)).rejects.toThrow('disk on fire');
  });
});
