import { afterEach, describe, expect, it, vi } from 'vitest';
import { commandLineOrExit, UsageError } from '../../src/lib/command-line.js';

afterEach(() => vi.restoreAllMocks());

describe('commandLineOrExit', () => {
  it('answers the command line when there is work to do', () => {
    expect(commandLineOrExit(() => ({ help: false, n: 3 }), 'Usage: x')).toEqual({ help: false, n: 3 });
  });
  it('prints the usage and answers 0 for --help', () => {
    const out = vi.spyOn(console, 'log').mockImplementation(() => {});
    expect(commandLineOrExit(() => ({ help: true }), 'Usage: x')).toBe(0);
    expect(out).toHaveBeenCalledWith('Usage: x');
  });
  it('prints a usage error with the usage and answers 2', () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    const read = (): { help?: boolean } => {
      throw new UsageError('--n must be a number');
    };
    expect(commandLineOrExit(read, 'Usage: x')).toBe(2);
    expect(err).toHaveBeenCalledWith('error: --n must be a number\n\nUsage: x');
  });
  it('lets any other error through', () => {
    const read = (): { help?: boolean } => {
      throw new Error('boom');
    };
    expect(() => commandLineOrExit(read, 'Usage: x')).toThrow('boom');
  });
});
