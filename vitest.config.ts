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
    // Many suites wait on PostgreSQL or child processes: three files at a time even on two cores.
    // On this project's 2-core machine the whole suite took 345 s with two, 302 s with three and
    // 295 s with four (which loads the tests that kill and restart a service the most).
    maxWorkers: 3,
    // CI runs on shared two-core machines where a process-level test (a service started, killed,
    // restarted) can miss a deadline once; it gets one more try there, and the CI summary names
    // every test that needed it (.ci/summary.mjs), so flakiness is seen and fixed, not hidden.
    retry: process.env.CI ? 1 : 0,
  },
});
