/**
 * `npm run import -- FILE.json` (or a dump directory): import a board written in the API's own
 * response shapes into the configured database, keeping ids. Every problem of a bad file is
 * listed on stderr and nothing is written (exit 1). `npm run import -- --help` for the format.
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseCommandLine, UsageError, usageErrorExit } from '../lib/command-line.js';
import { loadConfigOrExit } from '../config.js';
import { readDump } from '../dumps/read.js';
import { ImportError, importBoard, type ImportSummary } from '../import/api-json/index.js';
import { onBoardDatabase, runAsProgram } from './board.js';
import { PHILOMENA_USAGE, importPhilomena } from './import-philomena.js';
import { imageStorage } from '../media/storage-open.js';

export const USAGE = `Usage: npm run import -- FILE.json | DUMP_DIR

Imports a board into the database the server uses (DATABASE_URL, else the embedded one in
DATA_DIR), keeping every id. The file is one JSON object with optional top-level arrays in the
API's own response shapes:

  users      profiles (may carry "api_key": a key or a list of keys, stored hashed, "email", and
             "verified": true for a trusted user, whose uploads are approved at once; the
             uploads of a user who is neither verified nor staff wait for approval, out of
             every search: npm run admin -- approve IMAGE_IDS)
  tags       tags (aliased_tag, aliases, implied_tags, implied_by_tags are slugs)
  images     images ("file": path of the original, relative to FILE.json, analysed and stored with
             every representation; else width, height, format and mime_type are required;
             "tag_ids", or "tags" as names, or both as the API serves them: they must
             name the same tags, and the ids are imported)
  comments   comments (body null: a hidden comment)
  forums     forums (by short_name; optional "id" and "access_level")
  topics     topics, each with "forum": the forum's short name
  posts      posts, each with "topic": the topic's slug (and "forum" if the slug is ambiguous)
  galleries  galleries, each with "image_ids" in order
  filters    filters
  featured_image_id

A dump directory (npm run dump, or one downloaded from /dumps/) is read file by file: each
.jsonl.gz file is one of the arrays above, board.json gives featured_image_id, and the files are
checked against manifest.json as they are read. A dumps root is followed to its latest.json.

Importing the same file again changes nothing. Search indices follow through the outbox.
Exit status: 0 imported, 1 refused (every problem is listed on stderr), 2 usage error.

${PHILOMENA_USAGE}`;

function describe(summary: ImportSummary): string {
  const tables = new Set([...Object.keys(summary.inserted), ...Object.keys(summary.updated), ...Object.keys(summary.unchanged)]);
  const parts = [...tables].sort().map((t) => {
    const i = summary.inserted[t] ?? 0;
    const u = summary.updated[t] ?? 0;
    const same = summary.unchanged[t] ?? 0;
    return `  ${t}: ${i} inserted, ${u} updated, ${same} unchanged`;
  });
  return [...parts, `  files written: ${summary.filesWritten}`].join('\n');
}

async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === 'philomena' || command === 'philomena-dump') return importPhilomena(command, rest);
  let file: string | undefined;
  try {
    const { values, positionals } = parseCommandLine({
      args: process.argv.slice(2),
      allowPositionals: true,
      options: { help: { type: 'boolean', short: 'h' } },
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'no file given' : 'give exactly one file');
    file = positionals[0]!;
  } catch (err) {
    return usageErrorExit(err, USAGE);
  }

  let data: unknown;
  try {
    const isDump = (await stat(file)).isDirectory() || file.endsWith('.jsonl.gz');
    data = isDump ? await readDump(file) : JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    console.error(`error: cannot read ${file}: ${(err as Error).message}`);
    return 1;
  }

  const config = loadConfigOrExit();
  return onBoardDatabase(
    config,
    4,
    async (db) => {
      const summary = await importBoard(db, data, {
        fileStore: imageStorage(config),
        baseDir: dirname(resolve(file)),
      });
      console.log(`imported ${file}\n${describe(summary)}`);
      return 0;
    },
    (err) => {
      if (!(err instanceof ImportError)) return false;
      console.error(`error: ${file} was not imported (${err.problems.length} problem${err.problems.length === 1 ? '' : 's'}); nothing was written`);
      for (const p of err.problems) console.error(p);
      return true;
    },
  );
}

await runAsProgram(import.meta.url, main);
