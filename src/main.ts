/**
 * `npm start`: the whole service in one process. With no configuration it starts an embedded
 * PostgreSQL and the embedded search engine under DATA_DIR, fills an empty board with demo data,
 * keeps the indices in sync in-process, and serves the API.
 */
import { serve, type ServerType } from '@hono/node-server';
import { Indexer } from '../indexer/index.js';
import { loadConfigOrExit } from './config.js';
import { openDatabase } from './db/client.js';
import { createApp } from './http/app.js';
import { createLogger } from './log.js';
import { createSearchEngine } from './search/create-engine.js';
import { isBoardEmpty, seedDemoBoard } from './seed/demo.js';

const config = loadConfigOrExit();
const log = createLogger(config);

async function main() {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    log: (msg) => log.info(msg),
  });
  const { db } = database;
  log.info({ embedded: database.embedded }, 'database ready');

  if (config.demoData && (await isBoardEmpty(db))) {
    log.info({ images: config.demoImages, seed: config.demoSeed }, 'empty board: creating the demo board');
    const started = Date.now();
    await seedDemoBoard(db, { seed: config.demoSeed, images: config.demoImages, dataDir: config.dataDir, withFiles: true });
    log.info({ ms: Date.now() - started }, 'demo board created');
  }

  const engine = createSearchEngine(config);
  const indexer = new Indexer({ db, engine, log: (msg: string) => log.info(msg) });
  await indexer.ensureIndexes();
  // In embedded mode the index lives in this process: build what the snapshot lacks, then follow.
  // Beside OpenSearch the indexer runs as its own process (`npm run indexer -- sync --follow`).
  if (engine.kind === 'embedded') {
    await indexer.reindexIfEmpty();
    indexer.start();
  }

  const app = createApp({ config, db, engine });
  const server: ServerType = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
    log.info({ url: `http://${config.host}:${info.port}`, baseUrl: config.baseUrl }, 'listening');
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const deadline = setTimeout(() => {
      log.error('shutdown deadline passed; exiting');
      process.exit(1);
    }, 20_000);
    deadline.unref();
    // Stop accepting; requests in flight finish before close() calls back.
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await indexer.stop();
    await engine.flush();
    await engine.close();
    await database.close();
    log.info('stopped');
    log.flush();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  log.fatal({ err }, 'failed to start');
  log.flush();
  process.exit(1);
});
