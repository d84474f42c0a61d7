/**
 * `npm run dump`: write a dump of the board's public data now, as the nightly schedule does, into
 * the `dumps` area of the media storage (STORAGE_URL, else DATA_DIR/dumps) as `<YYYY-MM-DD>/`, or
 * into `--dir DIR/<YYYY-MM-DD>/`, keeping the newest DUMP_KEEP.
 */
import { commandLineOrExit, parseCommandLine, UsageError } from '../lib/command-line.js';
import { loadConfigOrExit } from '../config.js';
import { DirectoryStorage } from '../media/storage-directory.js';
import { openStorage } from '../media/storage-open.js';
import { DumpBusyError, writeDump } from '../dumps/write.js';
import { onBoardDatabase, runAsProgram } from './board.js';

export const USAGE = `Usage: npm run dump -- [--dir DIR] [--keep N] [--force]

Writes the board's public data (no e-mails, keys, IPs, fingerprints or hidden content) as one
gzip-compressed JSON-lines file per resource, in the import format, with manifest.json and
SHA256SUMS, into DIR/<YYYY-MM-DD>/ (default: dumps/ in the media storage, STORAGE_URL, else
DATA_DIR/dumps), and points latest.json beside it at it.
Reads the database the server uses (DATABASE_URL, else the embedded one in DATA_DIR).

  --dir DIR   a local directory to keep dumps in (default: where the server serves /dumps/ from)
  --keep N    dated dumps kept, this one included (default DUMP_KEEP, 7)
  --force     replace today's dump if there is one (default: leave it and exit 0)

Import one with: npm run import -- DIR/<YYYY-MM-DD>
Exit status: 0 written (or already there), 1 failed or another dump is running, 2 usage error.
`;

async function main(): Promise<number> {
  const values = commandLineOrExit(() => {
    const { values } = parseCommandLine({
      args: process.argv.slice(2),
      options: {
        help: { type: 'boolean', short: 'h' },
        dir: { type: 'string' },
        keep: { type: 'string' },
        force: { type: 'boolean' },
      },
    });
    if (values.keep !== undefined && !/^[1-9]\d{0,2}$/.test(values.keep)) throw new UsageError('--keep must be a positive whole number');
    return values;
  }, USAGE);
  if (typeof values === 'number') return values;

  const config = loadConfigOrExit();
  const storage = values.dir === undefined ? openStorage(config.storage).area('dumps') : new DirectoryStorage(values.dir);
  return onBoardDatabase(
    config,
    4,
    async (db) => {
      const started = Date.now();
      const result = await writeDump(db, {
        storage,
        config,
        keep: values.keep !== undefined ? Number(values.keep) : config.dumps.keep,
        ifMissing: !values.force,
      });
      if (!result) {
        console.log(`today's dump is already in ${storage.location} (use --force to replace it)`);
        return 0;
      }
      console.log(`dump ${result.name} written to ${result.location} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      for (const f of result.manifest.files) console.log(`  ${f.name}: ${f.records} record${f.records === 1 ? '' : 's'}, ${f.bytes} bytes`);
      return 0;
    },
    (err) => {
      if (!(err instanceof DumpBusyError)) return false;
      console.error('error: another dump is running; try again later');
      return true;
    },
  );
}

await runAsProgram(import.meta.url, main);
