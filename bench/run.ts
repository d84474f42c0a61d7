/**
 * `npm run bench -- <name> [args]` runs bench/<name>.ts; with no name, every benchmark in turn.
 * Each benchmark prints its own figures and a ratio against a baseline measured in the same run.
 * Only top-level files count: `_`-prefixed files and helpers in subfolders (bench/harness/, bench/search/) are not
 * benchmarks.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .map((f) => f.slice(0, -3))
  .sort();

const [name, ...rest] = process.argv.slice(2);
const chosen = name ? [name] : available;
for (const bench of chosen) {
  const file = join(here, `${bench}.ts`);
  if (!existsSync(file)) {
    console.error(`unknown benchmark "${bench}"; available: ${available.join(', ')}`);
    process.exit(2);
  }
  console.log(`# bench ${bench}`);
  // --expose-gc: benchmarks that report memory collect garbage before measuring it;
  // --max-semi-space-size: the same young generation as `npm start` gives the server
  // MALLOC_MMAP_THRESHOLD_: the allocator setting `npm start` gives the server (see README)
  const result = spawnSync(process.execPath, ['--expose-gc', '--max-semi-space-size=128', '--import', 'tsx', file, ...rest], {
    stdio: 'inherit',
    env: { MALLOC_MMAP_THRESHOLD_: '131072', ...process.env },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
