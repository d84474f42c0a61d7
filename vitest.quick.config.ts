/**
 * `npm run test:quick`: the pure suites — the query grammar, the search engine's internals, media
 * analysis, lib, and the web layer's pieces that need no database — in well under a minute. No
 * PostgreSQL is started (only `test/support/run-setup.ts` runs) and no file here starts a child
 * process; a file that asks for a test database fails at once saying it belongs to `npm test`.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/grammar/**/*.test.ts',
      'test/search/**/*.test.ts',
      'test/media/**/*.test.ts',
      'test/lib/**/*.test.ts',
      'test/http/{answer-batches,compiled-cache,etag,read-caches,request-query,search-params,tarpit}.test.ts',
      'test/ops/{http-series,log-time}.test.ts',
      'test/{bench/driver,migrate/copy-text,openapi/schemas,support/dsl-schema,upload/declared-size}.test.ts',
    ],
    exclude: [
      // in those folders, but they run programs or need PostgreSQL, S3 or OpenSearch servers
      'test/grammar/cli.test.ts',
      'test/search/{embedded-sql-oracle,opensearch-cluster}.test.ts',
      'test/media/{storage-copy,storage-s3,webm}.test.ts',
    ],
    globalSetup: ['test/support/run-setup.ts'],
    testTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
