/**
 * `npm run storage -- copy --to URL`: copies the board's media (image files and every
 * representation, avatars, badge and tag pictures, dumps) from the configured storage (STORAGE_URL,
 * else DATA_DIR) into another, typically object storage; then point STORAGE_URL at it. Run it
 * again at will: what is already there is skipped. `npm run storage -- --help` for usage.
 */
import { ConfigError, loadConfig, loadConfigOrExit, type StorageSettings } from '../config.js';
import { parseCommandLine, UsageError, usageErrorExit } from '../lib/command-line.js';
import { copyStorage } from '../media/storage-copy.js';
import { openStorage } from '../media/storage-open.js';
import { ProgressBar } from './progress-bar.js';
import { runAsProgram } from './board.js';

export const USAGE = `Usage: npm run storage -- copy --to URL [--from URL]

Copies every media file (images and their representations, avatars, badge and tag pictures,
dumps) from one storage into another, area by area, a few files at a time. A file already at the
destination with the same size is skipped, so an interrupted copy is finished by running it again.

  --to URL     s3://bucket/prefix (S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY
               and S3_FORCE_PATH_STYLE as for STORAGE_URL) or file:///path
  --from URL   where to copy from (default: the configured storage, STORAGE_URL else DATA_DIR)
  -h, --help   this text

Moving a board from DATA_DIR to object storage:
  npm run storage -- copy --to s3://media/board      # while the board runs
  STORAGE_URL=s3://media/board npm start               # restart on the bucket
  npm run storage -- copy --to s3://media/board --from file://$PWD/data   # files written meanwhile
`;

function parse(argv: string[]) {
  return parseCommandLine({
    args: argv,
    allowPositionals: true,
    options: { to: { type: 'string' }, from: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
}

/** The storage settings of a URL, validated as STORAGE_URL is (with the same S3 variables). */
function settingsOf(url: string): StorageSettings {
  return loadConfig({ ...process.env, STORAGE_URL: url }).storage;
}

async function main(): Promise<number> {
  let to: StorageSettings;
  let from: StorageSettings | undefined;
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(process.argv.slice(2));
    if (parsed.values.help) {
      console.log(USAGE);
      return 0;
    }
    if (parsed.positionals.length !== 1 || parsed.positionals[0] !== 'copy') throw new UsageError('the command is copy');
    if (!parsed.values.to) throw new UsageError('--to is required');
  } catch (err) {
    return usageErrorExit(err, USAGE);
  }
  const config = loadConfigOrExit();
  try {
    to = settingsOf(parsed.values.to);
    from = parsed.values.from === undefined ? undefined : settingsOf(parsed.values.from);
  } catch (err) {
    if (err instanceof ConfigError) return usageErrorExit(new UsageError(err.message.replace(/STORAGE_URL/g, 'the URL')), USAGE);
    return usageErrorExit(err, USAGE);
  }
  const source = openStorage(from ?? config.storage);
  const target = openStorage(to);
  if (source.location === target.location) {
    console.error(`error: ${source.location} is both the source and the destination`);
    return 2;
  }
  console.error(`copying media from ${source.location} to ${target.location}`);
  const bar = new ProgressBar();
  const summary = await copyStorage(source, target, (p) => bar.update(p.area, p.done, p.total));
  bar.finish();
  console.log(`${summary.copied} files copied (${(summary.bytes / 1024 / 1024).toFixed(1)} MiB), ${summary.skipped} already there`);
  return 0;
}

await runAsProgram(import.meta.url, main);
