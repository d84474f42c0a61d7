/**
 * `npm run seed -- …`: fill the configured database with a benchmark-scale board (COPY), or with
 * the demo board. `npm run seed -- --help` for usage.
 */
import { loadConfigOrExit } from '../config.js';
import { onBoardDatabase, runAsProgram } from './board.js';
import { commandLineOrExit, parseCommandLine, UsageError } from '../lib/command-line.js';
import { ProgressBar } from './progress-bar.js';
import { seedBulkBoard, type BulkProgress } from '../seed/bulk.js';
import { isBoardEmpty, truncateBoard } from '../seed/common.js';
import { seedDemoBoard } from '../seed/demo.js';
import { openStorage } from '../media/storage-open.js';

export const USAGE = `Usage: npm run seed -- [options]

Fills the database the server uses (DATABASE_URL, else the embedded one in DATA_DIR) with a
benchmark board loaded with COPY: tags with Zipf-like usage, images with ~25 tags each, sparse
faves and votes, a few users and the system filters. Search indices are not touched: rebuild
them afterwards (the server does so on start when its embedded index is empty).

Options
  --images N      number of images (default 1000)
  --tags N        number of distinct tags (default 200000)
  --users N       number of users (default 50)
  --seed N        seed of everything random (default 1; same seed, same board)
  --no-files      no image files: rows only (the usual choice for large boards)
  --demo          the demo board instead (users, comments, forums, galleries, …; seed default DEMO_SEED)
  --force         empty a non-empty board first (everything in it is deleted)
  -h, --help      this text

Without --no-files every image gets real files (generated, processed, with every
representation) in the media storage (STORAGE_URL, else DATA_DIR/images), as the demo board does: expect minutes per thousand.
`;

function count(value: string | undefined, name: string, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > 100_000_000) {
    throw new UsageError(`--${name} must be a whole number between ${min} and 100000000`);
  }
  return Number(value);
}

function parse(argv: string[]) {
  return parseCommandLine({
    args: argv,
    options: {
      images: { type: 'string' },
      tags: { type: 'string' },
      users: { type: 'string' },
      seed: { type: 'string' },
      'no-files': { type: 'boolean' },
      demo: { type: 'boolean' },
      force: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values;
}

async function main(): Promise<number> {
  const line = commandLineOrExit(() => {
    const values = parse(process.argv.slice(2));
    const counts = {
      images: count(values.images, 'images', 1000),
      tags: count(values.tags, 'tags', 200_000, 400),
      users: count(values.users, 'users', 50, 5),
      seed: values.seed === undefined ? undefined : count(values.seed, 'seed', 0),
    };
    if (values.demo && (values.tags !== undefined || values.users !== undefined)) throw new UsageError('--tags and --users do not apply to --demo');
    return { help: values.help, values, ...counts };
  }, USAGE);
  if (typeof line === 'number') return line;
  const { values, images, tags, users, seed } = line;

  const config = loadConfigOrExit();
  const bar = new ProgressBar();
  return onBoardDatabase(
    config,
    2,
    async (db) => {
      if (!values.force && !(await isBoardEmpty(db))) {
        console.error('error: the database is not empty; use --force to delete everything in it and seed again');
        return 1;
      }
      const withFiles = !values['no-files'];
      if (values.demo) {
        if (values.force) await truncateBoard(db);
        const s = await seedDemoBoard(db, {
          seed: seed ?? config.demoSeed,
          images,
          withFiles,
          storage: openStorage(config.storage),
          onProgress: (p) => bar.update(p.phase, p.done, p.total),
        });
        bar.finish();
        console.log(
          `demo board: ${s.images} images, ${s.tags} tags, ${s.users} users, ${s.comments} comments, ${s.posts} posts, ${s.files} files in ${(s.ms / 1000).toFixed(1)}s`,
        );
        return 0;
      }
      const s = await seedBulkBoard(db, {
        images,
        tags,
        users,
        seed: seed ?? 1,
        withFiles,
        storage: openStorage(config.storage),
        force: values.force,
        onProgress: (p: BulkProgress) => bar.update(p.phase, p.done, p.total),
      });
      bar.finish();
      const secs = s.ms / 1000;
      const rows = s.images + s.taggings + s.tags + s.faves + s.votes + s.sources;
      console.log(
        `bulk board: ${s.images.toLocaleString('en')} images, ${s.taggings.toLocaleString('en')} taggings, ${s.tags.toLocaleString('en')} tags, ` +
          `${s.faves.toLocaleString('en')} faves, ${s.votes.toLocaleString('en')} votes in ${secs.toFixed(1)}s ` +
          `(${Math.round(rows / secs).toLocaleString('en')} rows/s)`,
      );
      console.log(`phases (ms): ${Object.entries(s.phases).map(([k, v]) => `${k} ${v}`).join(', ')}`);
      console.log('search indices are not updated by seeding: reindex before searching');
      return 0;
    },
    () => {
      bar.finish(); // end the progress line before the error line
      return false;
    },
  );
}

await runAsProgram(import.meta.url, main);
