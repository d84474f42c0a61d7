/**
 * `npm run check`'s file rule: no source file over 600 lines in `src/`, `grammar/`, `indexer/` or
 * `bench/`. A longer file holds more than one concern; split it by concern, not into numbered
 * parts. (Function length is Biome's `noExcessiveLinesPerFunction`, biome.jsonc.)
 *
 * Left out: generated schema migrations (`src/db/migrations`).
 *
 * Usage: `tsx tools/check/file-length.ts [root]` (root: the project, default the working
 * directory). Exit 0 and one line when every file fits; exit 1 and each long file otherwise.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { sourceFiles } from './source-files.js';

export const MAX_FILE_LINES = 600;

/** The folders whose source files are held to the limit. */
const CHECKED = ['src', 'grammar', 'indexer', 'bench'];

/** Paths (relative to the root, `/`-separated) left out: generated files, or whole folders of them. */
const GENERATED = ['src/db/migrations/'];


/** Lines as an editor numbers them: a final newline does not start another line. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return text.endsWith('\n') ? lines - 1 : lines;
}

/** Each checked file of the project at `root` over the limit, with its length, longest first. */
export function longFiles(root: string): Array<{ path: string; lines: number }> {
  const long: Array<{ path: string; lines: number }> = [];
  for (const folder of CHECKED) {
    const dir = join(root, folder);
    if (!existsSync(dir)) continue;
    for (const file of sourceFiles(dir)) {
      const path = relative(root, file).split(sep).join('/');
      if (GENERATED.some((g) => path.startsWith(g))) continue;
      const lines = lineCount(readFileSync(file, 'utf8'));
      if (lines > MAX_FILE_LINES) long.push({ path, lines });
    }
  }
  return long.sort((a, b) => b.lines - a.lines || a.path.localeCompare(b.path));
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const long = longFiles(resolve(process.argv[2] ?? '.'));
  if (long.length === 0) {
    console.log(`file-length: no source file over ${MAX_FILE_LINES} lines`);
  } else {
    for (const f of long) console.error(`${f.path}: ${f.lines} lines (at most ${MAX_FILE_LINES})`);
    console.error(`file-length: ${long.length} file(s) over ${MAX_FILE_LINES} lines; split them by concern`);
    process.exitCode = 1;
  }
}
