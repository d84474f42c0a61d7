/**
 * The process's two sandboxes (pool.ts), so that a burst of large images or one render bomb waits,
 * is refused or is killed instead of taking the server with it, and jobs and requests never wait
 * for each other.
 */
import { DecodeSandbox } from './pool.js';

/**
 * The decodes of requests (submissions and reverse searches), each in a child process that is
 * killed past 10 s (`DECODE_REQUEST_SECONDS`) or 768 MB (sandbox/pool.ts): two at once (the machines this runs on have few
 * cores), eight waiting at most 5 s each, else 503. A decode of the largest image accepted
 * (100 megapixels) needs about 400 MB and a few seconds.
 */
export const requestDecodes = new DecodeSandbox({ size: 2, maxWaiting: 8, maxWaitMs: 5_000, deadlineMs: 10_000, memoryMb: 768 });

/**
 * The processing jobs' decodes (every representation of an accepted image), in a pool of their
 * own so that jobs and requests never wait for each other: one at a time, killed past 2 minutes
 * (`DECODE_JOB_SECONDS`) or 2 GB (the image's processing is then given up at once: the file, not
 * the moment, is at fault).
 */
export const jobDecodes = new DecodeSandbox({ size: 1, maxWaiting: 4, maxWaitMs: 600_000, deadlineMs: 120_000, memoryMb: 2048 });
