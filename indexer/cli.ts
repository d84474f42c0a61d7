/**
 * `npm run indexer -- <command>`: reindex, sync, status and verify from the command line.
 * Exit codes: 0 done (and no drift), 1 drift found or an error, 2 bad usage.
 */
import { loadConfigOrExit } from '../src/config.js';
import { createDatabase, openDatabase, type DatabaseHandle } from '../src/db/client.js';
import { createSearchEngine } from '../src/search/create-engine.js';
import type { SearchEngine } from '../src/search/engine.js';
import { indexNames, isIndexName, type IndexName } from '../src/search/indexes/index.js';
import { Indexer, type IndexerStatus, type ReindexProgress, type VerifyReport } from './index.js';
import { OutboxLeadership } from './leader.js';
import { table } from '../src/lib/table.js';
import { parseCommandLine, UsageError, usageErrorExit } from '../src/lib/command-line.js';

const USAGE = `Usage: npm run indexer -- <command> [options]

Commands:
  reindex [index...]           Rebuild indices (all by default) into new versions and switch
                               their aliases; changes made meanwhile are applied afterwards.
  sync [--once | --follow]     Apply the pending outbox rows and exit (--once, the default), or
                               keep following the outbox until interrupted (--follow; beside
                               OpenSearch only while it holds the lead the API processes share).
  status                       Rows in Postgres, documents in the engine, outbox lag.
  verify [index...] [--sample N]
                               Ids missing from or extra in each index, and N documents per
                               index (default 100) compared field by field with a fresh build.
                               Exits 1 if anything drifted.

Options:
  --json                       Print JSON instead of a table.
  --batch-size N               Rows loaded per query (default 5000).
  -h, --help                   Show this text.

Indices: ${indexNames.join(', ')}.

Settings come from the environment (DATABASE_URL, DATA_DIR, OPENSEARCH_URL, ...).

Embedded mode (OPENSEARCH_URL unset): this process loads the index snapshot from DATA_DIR, works
on its own copy in memory and writes the snapshot back when it is done. Stop the server while
reindexing or syncing from here: the server holds its own copy and would overwrite the snapshot
when it stops. (The server itself builds missing indices at startup and follows the outbox, so
these commands are rarely needed in embedded mode.)
`;

interface Options {
  command: string;
  indices: IndexName[];
  json: boolean;
  once: boolean;
  follow: boolean;
  sample: number;
  batchSize: number | undefined;
}

function parse(argv: string[]): Options | 'help' {
  const { values, positionals } = parseCommandLine({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      once: { type: 'boolean', default: false },
      follow: { type: 'boolean', default: false },
      sample: { type: 'string' },
      'batch-size': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return 'help';
  const [command, ...rest] = positionals;
  if (!command) throw new UsageError('no command given');
  if (!['reindex', 'sync', 'status', 'verify'].includes(command)) throw new UsageError(`unknown command: ${command}`);
  const positiveInt = (name: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer`);
    return n;
  };
  const indices: IndexName[] = [];
  for (const name of rest) {
    if (!isIndexName(name)) throw new UsageError(`unknown index: ${name} (one of ${indexNames.join(', ')})`);
    if (command !== 'reindex' && command !== 'verify') throw new UsageError(`${command} takes no index names`);
    if (!indices.includes(name)) indices.push(name);
  }
  if (values.once && values.follow) throw new UsageError('--once and --follow exclude each other');
  if ((values.once || values.follow) && command !== 'sync') throw new UsageError('--once and --follow are options of sync');
  if (values.sample !== undefined && command !== 'verify') throw new UsageError('--sample is an option of verify');
  const batchSize = positiveInt('batch-size', values['batch-size']);
  if (batchSize === 0) throw new UsageError('--batch-size must be at least 1');
  return {
    command,
    indices: indices.length > 0 ? indices : [...indexNames],
    json: values.json,
    once: values.once || !values.follow,
    follow: values.follow,
    sample: positiveInt('sample', values.sample) ?? 100,
    batchSize,
  };
}

/** A progress line on stderr: redrawn in place on a terminal, every few seconds otherwise. */
function progressReporter(): { update(p: ReindexProgress): void; end(): void } {
  const tty = process.stderr.isTTY === true;
  let lastLine = 0;
  let drawn = false;
  const render = (p: ReindexProgress) => {
    const width = 30;
    const ratio = p.total > 0 ? Math.min(1, p.done / p.total) : 1;
    const filled = Math.round(ratio * width);
    const bar = '#'.repeat(filled) + '-'.repeat(width - filled);
    const pct = `${Math.floor(ratio * 100)}%`.padStart(4);
    const phase = p.phase === 'loading' ? '' : ` ${p.phase}`;
    return `${p.index.padEnd(9)} [${bar}] ${pct} ${p.done}/${p.total} ${p.docsPerSecond} docs/s${phase}`;
  };
  return {
    update(p) {
      const line = render(p);
      if (tty) {
        process.stderr.write(`\r\x1b[2K${line}`);
        drawn = true;
        if (p.phase === 'done') {
          process.stderr.write('\n');
          drawn = false;
        }
      } else if (p.phase === 'done' || Date.now() - lastLine >= 2000) {
        lastLine = Date.now();
        process.stderr.write(`${line}\n`);
      }
    },
    end() {
      if (drawn) process.stderr.write('\n');
    },
  };
}

function printStatus(status: IndexerStatus, json: boolean): void {
  if (json) {
    console.log(JSON.stringify(status, null, 2));
    return;
  }
  console.log(
    table(
      ['index', 'rows', 'docs', 'diff'],
      status.indexes.map((s) => [s.index, s.rows, s.docs ?? 'missing', s.docs === null ? '' : s.docs - s.rows]),
    ),
  );
  const { outbox } = status;
  const age = outbox.oldestAgeSeconds === null ? '-' : `${outbox.oldestAgeSeconds.toFixed(1)} s`;
  const kinds = Object.entries(outbox.byKind)
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');
  console.log(`\nengine: ${status.engine}`);
  console.log(`outbox: ${outbox.pending} pending, oldest ${age}${kinds ? ` (${kinds})` : ''}`);
}

function printVerify(report: VerifyReport, json: boolean): void {
  if (json) {
    console.log(JSON.stringify(report, null, 2));
    return;
  }
  console.log(
    table(
      ['index', 'rows', 'docs', 'missing', 'extra', 'sampled', 'mismatched', 'ok'],
      report.indexes.map((r) => [r.index, r.rows, r.docs, r.missingCount, r.extraCount, r.sampled, r.mismatched.length, r.ok ? 'yes' : 'NO']),
    ),
  );
  for (const r of report.indexes) {
    if (r.missing.length > 0) console.log(`${r.index}: missing ids ${r.missing.join(', ')}${r.missingCount > r.missing.length ? ', ...' : ''}`);
    if (r.extra.length > 0) console.log(`${r.index}: extra ids ${r.extra.join(', ')}${r.extraCount > r.extra.length ? ', ...' : ''}`);
    for (const m of r.mismatched.slice(0, 20)) console.log(`${r.index} ${m.id}: differs in ${m.fields.join(', ')}`);
  }
}

async function run(opts: Options, log: (msg: string) => void): Promise<number> {
  const config = loadConfigOrExit();
  let handle: DatabaseHandle | undefined;
  let engine: SearchEngine | undefined;
  try {
    handle = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, log });
    engine = createSearchEngine(config);
    const indexer = new Indexer({ db: handle.db, engine, log, batchSize: opts.batchSize });
    await indexer.ensureIndexes();
    switch (opts.command) {
      case 'reindex': {
        const progress = opts.json ? undefined : progressReporter();
        const results = await indexer.reindex(opts.indices, { batchSize: opts.batchSize, onProgress: progress?.update });
        progress?.end();
        const applied = await indexer.syncOnce();
        if (opts.json) console.log(JSON.stringify({ results, appliedAfterwards: applied }, null, 2));
        else {
          console.log(
            table(
              ['index', 'version', 'docs', 'seconds', 'docs/s'],
              results.map((r) => [r.index, r.version, r.docs, Number(r.seconds.toFixed(1)), r.docsPerSecond]),
            ),
          );
          if (applied > 0) console.log(`\napplied ${applied} outbox rows that arrived meanwhile`);
        }
        break;
      }
      case 'sync': {
        // files of the embedded engine that lost writes are rebuilt before anything is applied on top
        if (engine.kind === 'embedded') await indexer.repairIndexes();
        if (opts.follow) {
          // beside a shared engine, one more candidate for the lead the API processes share
          const shared = engine.kind === 'embedded' ? undefined : new OutboxLeadership({ session: createDatabase(handle.url, { max: 1 }), indexer, log });
          if (shared) shared.start();
          else indexer.start();
          log(shared ? 'following the outbox whenever this process leads; interrupt to stop' : 'following the outbox; interrupt to stop');
          await new Promise<void>((resolve) => {
            process.once('SIGINT', () => resolve());
            process.once('SIGTERM', () => resolve());
          });
          await (shared ? shared.stop() : indexer.stop());
        } else {
          const applied = await indexer.syncOnce();
          if (opts.json) console.log(JSON.stringify({ applied }));
          else console.log(`applied ${applied} outbox rows`);
        }
        break;
      }
      case 'status':
        printStatus(await indexer.status(), opts.json);
        break;
      case 'verify': {
        const report = await indexer.verify(opts.indices, { sample: opts.sample });
        printVerify(report, opts.json);
        if (!report.ok) return 1;
        break;
      }
    }
    return 0;
  } finally {
    if (engine) {
      await engine.flush();
      await engine.close();
    }
    await handle?.close();
  }
}

async function main(): Promise<void> {
  let opts: Options | 'help';
  try {
    opts = parse(process.argv.slice(2));
  } catch (err) {
    process.exit(usageErrorExit(err, USAGE));
  }
  if (opts === 'help') {
    console.log(USAGE);
    return;
  }
  const log = (msg: string) => console.error(msg);
  try {
    process.exitCode = await run(opts, log);
  } catch (err) {
    console.error(`indexer: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}

await main();
