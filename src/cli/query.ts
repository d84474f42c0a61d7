/**
 * `npm run query -- explain --index images [--role anonymous|user|moderator] [--user-id N] 'safe, solo'`
 *
 * Prints `{"index":"images","query":<DSL>}` for the query, or `{"error":"…"}` and exits 1 when
 * it does not compile. Without a query argument, reads one query per line from stdin, prints one
 * line per query, keeps going after errors and exits 1 at the end if any failed.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { isQueryError, isRole, type QueryContext, type Role } from '../../grammar/index.js';
import { explainQuery } from '../contexts/search/explain.js';
import { isIndexName, indexNames, type IndexName } from '../search/indexes/index.js';

const USAGE = `usage: npm run query -- explain --index <${indexNames.join('|')}> [--role anonymous|user|moderator] [--user-id N] [query]
  Prints the OpenSearch query DSL the query compiles to, one JSON line per query.
  Without a query argument, reads one query per line from stdin.
  --role      who is searching (default anonymous; assistant and admin are accepted too)
  --user-id   the searcher's user ID for my: queries (default 1 for logged-in roles)`;

export interface CliIo {
  readStdin(): Promise<string>;
  out(line: string): void;
  err(line: string): void;
}

interface Options {
  index: IndexName;
  role: Role;
  userId: number | undefined;
  query: string | undefined;
}

function parseArgs(args: string[]): Options | string {
  const [command, ...rest] = args;
  if (command !== 'explain') return command === undefined ? 'missing command' : `unknown command ${JSON.stringify(command)}`;
  let index: string | undefined;
  let role: string = 'anonymous';
  let userId: string | undefined;
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') ? (eq === -1 ? arg : arg.slice(0, eq)) : null;
    if (name === '--') {
      positional.push(...rest.slice(i + 1));
      break;
    }
    if (name === '--index' || name === '--role' || name === '--user-id') {
      const value = eq === -1 ? rest[++i] : arg.slice(eq + 1);
      if (value === undefined) return `${name} needs a value`;
      if (name === '--index') index = value;
      else if (name === '--role') role = value;
      else userId = value;
    } else if (name !== null) {
      return `unknown option ${name}`;
    } else {
      positional.push(arg);
    }
  }
  if (!isIndexName(index)) return index === undefined ? '--index is required' : `unknown index ${JSON.stringify(index)}`;
  if (!isRole(role)) return `unknown role ${JSON.stringify(role)}`;
  if (userId !== undefined && !/^\d+$/.test(userId)) return '--user-id must be a non-negative integer';
  if (positional.length > 1) return 'give the query as one argument (quote it)';
  return {
    index,
    role,
    userId: userId !== undefined ? Number(userId) : role === 'anonymous' ? undefined : 1,
    query: positional[0],
  };
}

function explainLine(options: Options, query: string): { line: string; ok: boolean } {
  const context: QueryContext = options.userId === undefined ? {} : { userId: options.userId };
  try {
    return { line: JSON.stringify(explainQuery(options.index, query, options.role, context)), ok: true };
  } catch (error) {
    if (isQueryError(error)) return { line: JSON.stringify({ error: error.message }), ok: false };
    throw error;
  }
}

/** Runs the CLI; returns the exit code. */
export async function runQueryCli(args: string[], io: CliIo): Promise<number> {
  const options = parseArgs(args);
  if (typeof options === 'string') {
    io.err(`query: ${options}`);
    io.err(USAGE);
    return 2;
  }
  if (options.query !== undefined) {
    const { line, ok } = explainLine(options, options.query);
    io.out(line);
    return ok ? 0 : 1;
  }
  const lines = (await io.readStdin()).split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  let failed = false;
  for (const query of lines) {
    const { line, ok } = explainLine(options, query);
    io.out(line);
    if (!ok) failed = true;
  }
  return failed ? 1 : 0;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

function isMain(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

if (isMain()) {
  const code = await runQueryCli(process.argv.slice(2), {
    readStdin: () => readAll(process.stdin),
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  });
  process.exitCode = code;
}
