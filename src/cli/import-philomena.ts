/**
 * `npm run import -- philomena postgres://…` and `npm run import -- philomena-dump FILE`: bring a
 * Philomena board in (see src/import/philomena/run.ts). Exit status: 0 imported, 1 failed,
 * 2 usage error.
 */
import { parseArgs } from 'node:util';
import { httpsProblem, loadConfigOrExit } from '../config.js';
import { openDatabase } from '../db/client.js';
import { imageStorage } from '../media/storage-open.js';
import { openDumpSource } from '../import/philomena/dump-source.js';
import { bringFiles } from '../import/philomena/files.js';
import { openLiveSource } from '../import/philomena/live-source.js';
import { rebuildIndices } from '../import/philomena/rebuild-indices.js';
import { formatSummary, stderrReporter } from '../import/philomena/report.js';
import { MigrateRefused, migratePhilomena } from '../import/philomena/run.js';
import type { PhilomenaSource } from '../import/philomena/source.js';

export const PHILOMENA_USAGE = `Usage: npm run import -- philomena postgres://USER@HOST/DB [--origin-cdn URL] [--files DIR] [--force]
       npm run import -- philomena-dump FILE.pgdump [--origin-cdn URL] [--files DIR] [--force]

Imports a Philomena board keeping every id: from a live database (read-only, one snapshot; only
public columns are selected), or from a pg_dump custom-format archive such as Derpibooru's public
dump (read through pg_restore, from the Debian package postgresql-client; private columns are
dropped in memory and never written). Run it again to bring only what changed; an interrupted run
resumes where it stopped. After the first import into an empty board the search indices are
built from scratch (by the server when it starts, or by this command with OpenSearch); later
imports reach them through the outbox.

Without --files, image files stay where they are: give the origin's root with --origin-cdn so
representations and view_url point at it, rebuilt exactly as Philomena builds them.

  --origin-cdn URL  the https root the source's files are served from (Derpibooru:
               https://derpicdn.net; URLs are URL/img/...), stored with the import: the server
               serves images the board holds no file of from there (CDN_URL stays the root of
               the board's own files); later runs keep it unless given another
  --files DIR  Philomena's image store (DIR/Y/M/D/ID/full.EXT): originals are hard-linked (or
               copied) into the image storage (STORAGE_URL, else DATA_DIR/images) and queued
               for processing; the server makes every representation in the background
  --force      empty a board holding content that was not imported from Philomena first
`;

/** The origin's root as stored: an https URL (http only for a development host), no trailing slash. */
function originRoot(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`--origin-cdn: not a URL: ${value}`);
  }
  const problem = url.protocol === 'https:' ? undefined : url.protocol === 'http:' ? httpsProblem(value) : 'must be an https URL';
  if (problem) throw new Error(`--origin-cdn: ${problem}`);
  return url.toString().replace(/\/+$/, '');
}

export async function importPhilomena(kind: 'philomena' | 'philomena-dump', argv: string[]): Promise<number> {
  let target: string;
  let force: boolean;
  let files: string | undefined;
  let originCdn: string | undefined;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { force: { type: 'boolean' }, files: { type: 'string' }, 'origin-cdn': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
    if (values.help) {
      console.log(PHILOMENA_USAGE);
      return 0;
    }
    if (positionals.length !== 1) throw new Error(kind === 'philomena' ? 'give the database URL' : 'give the archive file');
    target = positionals[0]!;
    if (kind === 'philomena' && !/^postgres(ql)?:\/\//.test(target)) throw new Error('the source must be a postgres:// URL');
    force = values.force === true;
    files = values.files;
    if (values['origin-cdn'] !== undefined) originCdn = originRoot(values['origin-cdn']);
  } catch (err) {
    console.error(`error: ${(err as Error).message}\n\n${PHILOMENA_USAGE}`);
    return 2;
  }

  const config = loadConfigOrExit();
  let source: PhilomenaSource | undefined;
  const handle = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, max: 4 });
  const reporter = stderrReporter();
  try {
    source = kind === 'philomena' ? await openLiveSource(target) : await openDumpSource(target);
    const result = await migratePhilomena(handle.db, source, { reporter, force, ...(originCdn ? { originCdn } : {}) });
    await source.close();
    source = undefined;
    const placed = files === undefined ? undefined : await bringFiles(handle.db, files, imageStorage(config), reporter);
    if (result.firstImport) {
      // OpenSearch is shared: fill it now. The embedded index lives in the server's process, which
      // builds every index that has no documents when it starts; building it here too would only
      // hold a second copy in this process's memory.
      if (config.opensearchNodes.length > 0) await rebuildIndices(handle.db, config, (m) => reporter.note(m));
      else reporter.note('the search indices are built when the server starts (or now: npm run indexer -- reindex)');
    }
    console.log(`imported ${target} (${result.dialect} schema) in ${result.seconds.toFixed(1)}s\n${formatSummary(result.tallies)}`);
    for (const [table, why] of Object.entries(result.absent)) console.log(`  ${table}: not in the source (${why})`);
    if (placed) console.log(`  files: ${placed.linked} linked, ${placed.copied} copied, ${placed.missing} missing; ${placed.linked + placed.copied} images queued for processing`);
    return 0;
  } catch (err) {
    console.error(`error: ${err instanceof MigrateRefused ? '' : 'import stopped: '}${(err as Error).message}`);
    return 1;
  } finally {
    await source?.close().catch(() => {});
    await handle.close();
  }
}
