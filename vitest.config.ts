import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // A worker runs file after file in one module graph instead of importing the app afresh for
    // each (a second or more a file, some 200 files): files share no state but what modules hold,
    // and every shared thing a test makes (databases, servers, engines) is its own.
    isolate: false,
    // Many suites wait on PostgreSQL or child processes: two files at a time even on two cores.
    // (Three took the whole suite from 465 s to 422 s on this project's 2-core machine, with more
    // load on the tests that kill and restart a service.)
    maxWorkers: 2,
    // CI runs on shared two-core machines where a process-level test (a service started, killed,
    // restarted) can miss a deadline once; it gets one more try there, and the CI summary names
    // every test that needed it (.ci/summary.mjs), so flakiness is seen and fixed, not hidden.
    retry: process.env.CI ? 1 : 0,
  },
});
