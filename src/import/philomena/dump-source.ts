/**
 * Reading a pg_dump custom-format archive (a Philomena database, or Derpibooru's public dump)
 * without restoring it: `pg_restore --data-only --table=T -f -` writes the table's COPY block to
 * a pipe, and only the chosen columns of each line are kept; the rest is dropped in memory, so no
 * private value of the archive is ever written anywhere.
 */
import { spawn } from 'node:child_process';
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { COPY_END, decodeCopyField, parseCopyHeader, streamLines } from './copy-text.js';
import type { PhilomenaSource, TableLines } from './source.js';

export const PG_RESTORE_PACKAGE = 'postgresql-client';

/** What the archive header says: format version and the PostgreSQL versions that wrote it. */
export interface ArchiveInfo {
  format: string;
  serverVersion?: string;
  dumpVersion?: string;
}

/** Read the header of a custom-format archive (`PGDMP`, version bytes, then a few strings). */
export async function readArchiveInfo(file: string): Promise<ArchiveInfo> {
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    if (bytesRead < 11 || buf.toString('latin1', 0, 5) !== 'PGDMP') {
      throw new Error(`${file} is not a pg_dump custom-format archive (it does not start with PGDMP)`);
    }
    const [major, minor] = [buf[5]!, buf[6]!];
    const info: ArchiveInfo = { format: `${major}.${minor}.${buf[7]}` };
    try {
      const intSize = buf[8]!;
      let at = 11; // after magic, three version bytes, int size, offset size, format
      const readInt = () => {
        const negative = buf[at++] !== 0;
        let value = 0;
        for (let i = 0; i < intSize; i++) value += buf[at++]! * 2 ** (8 * i);
        return negative ? -value : value;
      };
      const readString = () => {
        const len = readInt();
        if (len < 0) return '';
        const s = buf.toString('utf8', at, at + len);
        at += len;
        return s;
      };
      if (major === 1 && minor >= 15) at += 1; // compression algorithm byte
      else readInt(); // compression level
      for (let i = 0; i < 7; i++) readInt(); // creation time
      readString(); // database name
      info.serverVersion = readString();
      info.dumpVersion = readString();
    } catch {
      // Older or unusual headers: the format version is enough to name.
    }
    return info;
  } finally {
    await handle.close();
  }
}

function describeArchive(info: ArchiveInfo): string {
  const parts = [`archive format ${info.format}`];
  if (info.dumpVersion) parts.push(`written by pg_dump ${info.dumpVersion}`);
  if (info.serverVersion) parts.push(`from PostgreSQL ${info.serverVersion}`);
  return parts.join(', ');
}

/** Run pg_restore with arguments, yielding its stdout lines in batches; fails with its stderr. */
async function* pgRestoreLines(pgRestore: string, args: string[], info: ArchiveInfo): AsyncGenerator<string[]> {
  const child = spawn(pgRestore, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    if (stderr.length < 10_000) stderr += d;
  });
  // Settles either way, so a failed spawn is never an unhandled rejection.
  const exited = new Promise<number | Error>((resolve) => {
    child.once('error', resolve);
    child.once('close', (code) => resolve(code ?? 1));
  });
  const failure = (err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      return new Error(`${pgRestore} was not found: install the Debian package ${PG_RESTORE_PACKAGE} (apt-get install ${PG_RESTORE_PACKAGE}) at a version that reads this archive (${describeArchive(info)})`);
    }
    return err as Error;
  };
  try {
    yield* streamLines(child.stdout);
    const code = await exited;
    if (code instanceof Error) throw code;
    if (code !== 0) {
      const hint = /unsupported version/i.test(stderr) ? ` This pg_restore is too old for the archive (${describeArchive(info)}): install a newer ${PG_RESTORE_PACKAGE}.` : '';
      throw new Error(`pg_restore failed (exit ${code}): ${stderr.trim()}${hint}`);
    }
  } catch (err) {
    throw failure(err);
  } finally {
    if (child.exitCode === null) child.kill();
  }
}

export async function openDumpSource(file: string, options: { pgRestore?: string } = {}): Promise<PhilomenaSource> {
  const pgRestore = options.pgRestore ?? process.env.PG_RESTORE ?? 'pg_restore';
  const info = await readArchiveInfo(file);
  let tableCache: Map<string, string[]> | undefined;

  /** Table → columns, from the CREATE TABLE statements of the archive's schema. */
  async function readTables(): Promise<Map<string, string[]>> {
    const tables = new Map<string, string[]>();
    let current: string[] | undefined;
    for await (const batch of pgRestoreLines(pgRestore, ['--schema-only', '--no-owner', '--no-privileges', '-f', '-', file], info)) for (const line of batch) {
      const start = /^CREATE (?:UNLOGGED )?TABLE (?:[^\s.]+\.)?("(?:[^"]|"")+"|[^\s(]+) \($/.exec(line);
      if (start) {
        current = [];
        tables.set(start[1]!.replace(/^"|"$/g, ''), current);
        continue;
      }
      if (current) {
        if (/^\)/.test(line)) current = undefined;
        else {
          const col = /^\s+("(?:[^"]|"")+"|[^\s]+)\s/.exec(line);
          if (col && !/^(CONSTRAINT|CHECK|PRIMARY|UNIQUE|FOREIGN|EXCLUDE)$/i.test(col[1]!)) current.push(col[1]!.replace(/^"|"$/g, ''));
        }
      }
    }
    return tables;
  }

  const source: PhilomenaSource = {
    label: `dump:${resolve(file)}`,
    filters: false,
    async tables() {
      tableCache ??= await readTables();
      return tableCache;
    },
    async migrations() {
      if (!(await source.tables()).has('schema_migrations')) return [];
      const { lines } = await source.read('schema_migrations', (cols) => cols.filter((c) => c === 'version'));
      const versions: string[] = [];
      for await (const batch of lines) {
        for (const line of batch) {
          const version = decodeCopyField(line);
          if (version) versions.push(version);
        }
      }
      return versions;
    },
    async estimate() {
      return undefined;
    },
    async snapshotTime() {
      return null;
    },
    async read(table, pick): Promise<TableLines> {
      const available = (await source.tables()).get(table);
      if (!available) throw new Error(`the archive has no table ${table}`);
      const columns = pick(available);
      const all = pgRestoreLines(pgRestore, ['--data-only', `--table=${table}`, '-f', '-', file], info);
      async function* lines() {
        let indexes: number[] | undefined;
        let whole = false;
        for await (const batch of all) {
          const out: string[] = [];
          for (const line of batch) {
            if (indexes === undefined) {
              const header = parseCopyHeader(line);
              if (header && header.table === table) {
                indexes = columns.map((c) => header.columns.indexOf(c));
                whole = indexes.length === header.columns.length && indexes.every((at, i) => at === i);
              }
              continue;
            }
            if (line === COPY_END) {
              indexes = undefined;
              continue;
            }
            if (whole) out.push(line);
            else {
              // Only the kept fields go on; the others are dropped here, never decoded.
              const fields = line.split('\t');
              out.push(indexes.map((i) => (i < 0 ? '\\N' : fields[i]!)).join('\t'));
            }
          }
          if (out.length > 0) yield out;
        }
      }
      return { columns, lines: lines() };
    },
    async close() {},
  };
  return source;
}
