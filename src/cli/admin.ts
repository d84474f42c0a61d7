/**
 * Operator commands against the configured database: users, roles, API keys, system filters, the
 * featured image, fingerprints and duplicate reports, parked background jobs and bans. `npm run admin -- --help` for usage.
 */
import type { ParseArgsConfig } from 'node:util';
import { banEnd, banIp, banUser, listBans, unban, type BanListing } from '../contexts/users/bans.js';
import { AdminError } from '../contexts/errors.js';
import { deleteImage, restoreImage } from '../contexts/images/deletion.js';
import { listOpenDuplicateReports, mergeDuplicate, type DuplicateReportListing } from '../contexts/images/duplicates.js';
import { featureImage } from '../contexts/images/features.js';
import { backfillFingerprints } from '../contexts/images/fingerprints.js';
import { retagImages } from '../contexts/images/retag.js';
import type { MediaStorage } from '../media/storage.js';
import { imageStorage } from '../media/storage-open.js';
import { ProgressBar } from './progress-bar.js';
import { createSystemFilter, editSystemFilter, listFilters, type FilterListing, type SystemFilterInput } from '../contexts/filters/system-filters.js';
import { issueKey, revokeAllKeys, revokeKey } from '../contexts/users/keys.js';
import { createUser, parseRole, setRole, verifyUser } from '../contexts/users/accounts.js';
import { approveImages } from '../contexts/images/approve.js';
import { loadConfigOrExit } from '../config.js';
import { parkedJobs, removeParkedJob, retryParkedJobs } from '../jobs/index.js';
import { openDatabase, type Database } from '../db/client.js';
import { runAsProgram } from './board.js';
import { parseCommandLine, UsageError, usageErrorExit } from '../lib/command-line.js';

export const USAGE = `Usage: npm run admin -- <command> [options]

Users and keys
  user create NAME [--role ROLE] [--email EMAIL]   create a user (ROLE: user, assistant, moderator, admin)
  user role NAME ROLE                              change a user's role
  user verify NAME                                 trust a user: their uploads are approved at once
                                                   (else an upload by a user who is not staff waits
                                                   for approval, left out of every search)
  key issue NAME                                   issue an API key; it is printed once, keep it
  key revoke KEY_PREFIX                            revoke the one active key starting with KEY_PREFIX
                                                   (a prefix beginning with "-" goes after "--")
  key revoke --all NAME                            revoke every active key of a user

System filters (tag lists are comma-separated names; complex strings use the search syntax)
  filter system create NAME [--hide TAGS] [--spoiler TAGS] [--hidden-complex Q]
                            [--spoilered-complex Q] [--description TEXT]
  filter system edit ID [--name NAME] [--hide TAGS] [--spoiler TAGS] [--hidden-complex Q]
                        [--spoilered-complex Q] [--description TEXT]
  filter list [--system]                           list filters (only system ones with --system)

Images
  feature IMAGE_ID                                 make an image the featured image
  image delete IMAGE_ID --reason TEXT              delete an image for a rule violation: every view
                                                   shows only its stub with TEXT, no search finds it,
                                                   none of its files is served
  image restore IMAGE_ID                           show a deleted image again
  approve IMAGE_IDS                                approve images waiting for it (IMAGE_IDS comma-separated)
  tags IMAGE_IDS [--add TAGS] [--remove TAGS]      add and remove tags of images (IMAGE_IDS comma-separated),
                                                   all in one change
  fingerprints backfill [--batch N]                compute missing perceptual fingerprints, N images
                                                   a transaction (default 50); resumable: run it
                                                   again after an interruption
  duplicates list                                  open near-duplicate reports
  duplicates merge SOURCE TARGET                   hide image SOURCE as a duplicate of TARGET

Background jobs (a job that failed its last attempt is parked: it stays until retried or removed)
  jobs list                                        parked jobs with their last error
  jobs retry ID | --all                            queue a parked job (or every one) again
  jobs remove ID                                   give up on a parked job

Bans (permanent unless --until or --for is given)
  ban user NAME --reason TEXT [--until DATE | --for DURATION] [--note TEXT]
  ban ip ADDR[/BITS] --reason TEXT [--until DATE | --for DURATION] [--note TEXT]
  ban list [--all]                                 bans in force (--all: every ban)
  unban ID                                         lift a ban

  DATE is YYYY-MM-DD (the ban lasts through that day, UTC) or an RFC 3339 datetime;
  DURATION is a number with h, d, w or y (12h, 7d, 2w, 1y).

The database is the one the server uses: DATABASE_URL if set, else the embedded one in DATA_DIR.
Exit status: 0 on success, 1 when the command is refused, 2 on a usage error.
`;

const options = {
  help: { type: 'boolean', short: 'h' },
  role: { type: 'string' },
  email: { type: 'string' },
  all: { type: 'boolean' },
  system: { type: 'boolean' },
  name: { type: 'string' },
  hide: { type: 'string' },
  spoiler: { type: 'string' },
  'hidden-complex': { type: 'string' },
  'spoilered-complex': { type: 'string' },
  description: { type: 'string' },
  reason: { type: 'string' },
  note: { type: 'string' },
  until: { type: 'string' },
  for: { type: 'string' },
  batch: { type: 'string' },
  add: { type: 'string' },
  remove: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

const parseAdminCommandLine = (argv: string[]) => parseCommandLine({ args: argv, options, allowPositionals: true });

type Values = ReturnType<typeof parseAdminCommandLine>['values'];

/** Options a command accepts; anything else given is a usage error. */
function allow(values: Values, command: string, allowed: readonly (keyof typeof options)[]): void {
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined || key === 'help') continue;
    if (!(allowed as readonly string[]).includes(key)) throw new UsageError(`${command} does not take --${key}`);
  }
}

function arity(positionals: string[], count: number, shape: string): void {
  if (positionals.length !== count) throw new UsageError(`expected: ${shape}`);
}

function parseId(text: string | undefined, what: string): number {
  if (text === undefined || !/^\d+$/.test(text) || Number(text) > 2_147_483_647 || Number(text) < 1) {
    throw new UsageError(`${what} must be a positive integer, got ${JSON.stringify(text ?? '')}`);
  }
  return Number(text);
}

function filterInput(values: Values): SystemFilterInput {
  return {
    name: values.name,
    description: values.description,
    hide: values.hide,
    spoiler: values.spoiler,
    hiddenComplex: values['hidden-complex'],
    spoileredComplex: values['spoilered-complex'],
  };
}

const FILTER_OPTIONS = ['hide', 'spoiler', 'hidden-complex', 'spoilered-complex', 'description'] as const;

function formatFilter(f: FilterListing): string {
  const kind = f.system ? 'system' : f.public ? 'public' : 'private';
  const lines = [`${f.id}\t${f.name}\t(${kind}${f.userId === null ? '' : `, user ${f.userId}`}, ${f.userCount} users)`];
  if (f.description) lines.push(`\tdescription: ${f.description}`);
  lines.push(`\thidden: ${f.hiddenTags.join(', ') || '-'}`);
  lines.push(`\tspoilered: ${f.spoileredTags.join(', ') || '-'}`);
  if (f.hiddenComplexStr) lines.push(`\thidden complex: ${f.hiddenComplexStr.replace(/\n/g, '\\n')}`);
  if (f.spoileredComplexStr) lines.push(`\tspoilered complex: ${f.spoileredComplexStr.replace(/\n/g, '\\n')}`);
  return lines.join('\n');
}

function formatBan(b: BanListing): string {
  const target = b.userId !== null ? `user ${b.userName ?? `#${b.userId}`}` : `ip ${b.ip}`;
  const until = b.validUntil ? `until ${b.validUntil.toISOString()}` : 'permanent';
  const state = b.enabled ? '' : ' [lifted]';
  return `${b.id}\t${target}\t${until}${state}\t${b.reason}${b.note ? ` (${b.note})` : ''}`;
}

function formatParkedJob(j: { id: number; kind: string; payload: unknown; attempts: number; last_error: string | null; updated_at: string | Date }): string {
  const at = new Date(j.updated_at).toISOString();
  return `${j.id}\t${j.kind}\t${JSON.stringify(j.payload)}\t${j.attempts} attempts\tparked ${at}\t${(j.last_error ?? '').replace(/\s+/g, ' ')}`;
}

/** What a command needs from the world, so that tests can run commands in-process too. */
export interface CommandIo {
  out: (line: string) => void;
  /** Where image files are stored (commands that read them). */
  fileStore?: () => MediaStorage;
  /** Progress of long commands (a bar on stderr for the program). */
  progress?: (phase: string, done: number, total: number) => void;
}

function formatReport(r: DuplicateReportListing): string {
  return `${r.id}\timage ${r.imageId} resembles ${r.duplicateOfImageId}\tdistance ${r.distance}\t${r.createdAt.toISOString()}`;
}

/**
 * Run one admin command. Throws UsageError for a malformed command line and AdminError when the
 * command is refused; `withDb` opens the database only once the command line is known to be good.
 */
export async function runCommand(argv: string[], io: CommandIo, withDb: WithDb): Promise<void> {
  const { values, positionals } = parseAdminCommandLine(argv);
  if (values.help) {
    io.out(USAGE);
    return;
  }
  const [group, action, ...rest] = positionals;
  if (group === undefined) throw new UsageError('no command given');
  const command: Command = { values, cmd: [group, action].filter(Boolean).join(' '), action, rest, io, withDb };
  if (group === 'approve') return approveCommand(values, positionals.slice(1), io, withDb);
  const run = GROUPS.get(group);
  // `feature`, `tags` and `unban` take their arguments right after the group: `action` is the first.
  const handled = run !== undefined && (await run(SINGLE_WORD.has(group) ? { ...command, rest: positionals.slice(1) } : command));
  if (!handled) throw new UsageError(`unknown command: ${positionals.join(' ')}`);
}

type WithDb = <T>(fn: (db: Database) => Promise<T>) => Promise<T>;

/** One command line, split for the group that runs it. */
interface Command {
  values: Values;
  /** The group and action, as usage errors name the command. */
  cmd: string;
  action: string | undefined;
  /** The words after the action (after the group, for the groups of one word). */
  rest: string[];
  io: CommandIo;
  withDb: WithDb;
}

/** Each group's runner: false for an action it does not know. */
const GROUPS = new Map<string, (command: Command) => Promise<boolean>>([
  ['user', userCommand],
  ['key', keyCommand],
  ['filter', filterCommand],
  ['feature', featureCommand],
  ['image', imageCommand],
  ['tags', tagsCommand],
  ['fingerprints', fingerprintsCommand],
  ['duplicates', duplicatesCommand],
  ['ban', banCommand],
  ['jobs', jobsCommand],
  ['unban', unbanCommand],
]);

const SINGLE_WORD = new Set(['feature', 'tags', 'unban']);

/** `user create|verify|role`: accounts and their roles. */
async function userCommand({ values, cmd, action, rest, io, withDb }: Command): Promise<boolean> {
  if (action === 'create') {
    allow(values, cmd, ['role', 'email']);
    arity(rest, 1, 'user create NAME [--role ROLE] [--email EMAIL]');
    const role = values.role === undefined ? undefined : parseRole(values.role);
    const user = await withDb((db) => createUser(db, { name: rest[0]!, role, email: values.email }));
    io.out(`created user ${user.name} (id ${user.id}, role ${user.role})`);
    return true;
  }
  if (action === 'verify') {
    allow(values, cmd, []);
    arity(rest, 1, 'user verify NAME');
    const user = await withDb((db) => verifyUser(db, rest[0]!));
    io.out(`user ${user.name} is now verified: their uploads are approved at once`);
    return true;
  }
  if (action === 'role') {
    allow(values, cmd, []);
    arity(rest, 2, 'user role NAME ROLE');
    const role = parseRole(rest[1]!);
    const user = await withDb((db) => setRole(db, rest[0]!, role));
    io.out(`user ${user.name} is now ${user.role}`);
    return true;
  }
  return false;
}

/** `key issue|revoke`: API keys. */
async function keyCommand({ values, cmd, action, rest, io, withDb }: Command): Promise<boolean> {
  if (action === 'issue') {
    allow(values, cmd, []);
    arity(rest, 1, 'key issue NAME');
    const issued = await withDb((db) => issueKey(db, rest[0]!));
    io.out(issued.key);
    return true;
  }
  if (action === 'revoke') {
    allow(values, cmd, ['all']);
    if (values.all) {
      arity(rest, 1, 'key revoke --all NAME');
      const n = await withDb((db) => revokeAllKeys(db, rest[0]!));
      io.out(`revoked ${n} key${n === 1 ? '' : 's'} of ${rest[0]}`);
    } else {
      arity(rest, 1, 'key revoke KEY_PREFIX');
      const revoked = await withDb((db) => revokeKey(db, rest[0]!));
      io.out(`revoked key ${revoked.prefix}… (id ${revoked.id})`);
    }
    return true;
  }
  return false;
}

/** `filter system create|edit`, `filter list`: filters. */
async function filterCommand({ values, cmd, action, rest, io, withDb }: Command): Promise<boolean> {
  if (action === 'system') {
    const [sub, ...args] = rest;
    if (sub === 'create') {
      allow(values, 'filter system create', FILTER_OPTIONS);
      arity(args, 1, 'filter system create NAME [options]');
      const f = await withDb((db) => createSystemFilter(db, { ...filterInput(values), name: args[0]! }));
      io.out(`created system filter ${f.name} (id ${f.id})`);
      return true;
    }
    if (sub === 'edit') {
      allow(values, 'filter system edit', [...FILTER_OPTIONS, 'name']);
      arity(args, 1, 'filter system edit ID [options]');
      const id = parseId(args[0], 'ID');
      const f = await withDb((db) => editSystemFilter(db, id, filterInput(values)));
      io.out(`updated system filter ${f.name} (id ${f.id})`);
      return true;
    }
    throw new UsageError('expected: filter system create|edit …');
  }
  if (action === 'list') {
    allow(values, cmd, ['system']);
    arity(rest, 0, 'filter list [--system]');
    const list = await withDb((db) => listFilters(db, { system: values.system }));
    io.out(list.length === 0 ? 'no filters' : list.map(formatFilter).join('\n'));
    return true;
  }
  return false;
}

/** `fingerprints backfill`: fingerprints of images stored before they were taken. */
async function fingerprintsCommand({ values, cmd, action, rest, io, withDb }: Command): Promise<boolean> {
  if (action === 'backfill') {
    allow(values, cmd, ['batch']);
    arity(rest, 0, 'fingerprints backfill [--batch N]');
    const batchSize = values.batch === undefined ? undefined : parseId(values.batch, '--batch');
    const fileStore = io.fileStore?.();
    if (fileStore === undefined) throw new AdminError('no image store configured');
    const result = await withDb((db) =>
      backfillFingerprints(
        { db, fileStore },
        { ...(batchSize === undefined ? {} : { batchSize }), onProgress: (p) => io.progress?.('fingerprints', p.done, p.total), onFailure: (id, reason) => io.out(`image ${id}: ${reason}`) },
      ),
    );
    io.out(`fingerprinted ${result.done - result.failed} image${result.done - result.failed === 1 ? '' : 's'}, ${result.failed} failed`);
    return true;
  }
  return false;
}

/** `duplicates list|merge`: duplicate reports. */
async function duplicatesCommand({ values, cmd, action, rest, io, withDb }: Command): Promise<boolean> {
  if (action === 'list') {
    allow(values, cmd, []);
    arity(rest, 0, 'duplicates list');
    const list = await withDb((db) => listOpenDuplicateReports(db));
    io.out(list.length === 0 ? 'no open duplicate reports' : list.map(formatReport).join('\n'));
    return true;
  }
  if (action === 'merge') {
    allow(values, cmd, []);
    arity(rest, 2, 'duplicates merge SOURCE TARGET');
    const source = parseId(rest[0], 'SOURCE');
    const target = parseId(rest[1], 'TARGET');
    await withDb((db) => mergeDuplicate(db, source, target));
    io.out(`image ${source} is now hidden as a duplicate of ${target}`);
    return true;
  }
  return false;
}

/** `ban user|ip`, `ban list`: bans. */
async function banCommand({ values, cmd, action, rest, io, withDb }: Command): Promise<boolean> {
  if (action === 'user' || action === 'ip') {
    allow(values, cmd, ['reason', 'note', 'until', 'for']);
    arity(rest, 1, `ban ${action} ${action === 'user' ? 'NAME' : 'ADDR[/BITS]'} --reason TEXT [--until DATE | --for DURATION]`);
    if (values.reason === undefined) throw new UsageError(`${cmd} needs --reason`);
    const until = banEnd({ until: values.until, for: values.for });
    const input = { reason: values.reason, note: values.note, until };
    const ban = await withDb((db) => (action === 'user' ? banUser(db, rest[0]!, input) : banIp(db, rest[0]!, input)));
    io.out(`created ban ${ban.id} (${action === 'user' ? `user ${rest[0]}` : `ip ${ban.ip}`}, ${until ? `until ${until.toISOString()}` : 'permanent'})`);
    return true;
  }
  if (action === 'list') {
    allow(values, cmd, ['all']);
    arity(rest, 0, 'ban list [--all]');
    const list = await withDb((db) => listBans(db, { all: values.all }));
    io.out(list.length === 0 ? 'no bans' : list.map(formatBan).join('\n'));
    return true;
  }
  return false;
}

/** `jobs list|retry|remove`: parked jobs. */
async function jobsCommand({ values, cmd, action, rest, io, withDb }: Command): Promise<boolean> {
  if (action === 'list') {
    allow(values, cmd, []);
    arity(rest, 0, 'jobs list');
    const list = await withDb((db) => parkedJobs(db, 1000));
    io.out(list.length === 0 ? 'no parked jobs' : list.map(formatParkedJob).join('\n'));
    return true;
  }
  if (action === 'retry') {
    allow(values, cmd, ['all']);
    if (values.all) {
      arity(rest, 0, 'jobs retry --all');
      const n = await withDb((db) => retryParkedJobs(db));
      io.out(`queued ${n} parked job${n === 1 ? '' : 's'} again`);
      return true;
    }
    arity(rest, 1, 'jobs retry ID | --all');
    const id = parseId(rest[0], 'ID');
    if ((await withDb((db) => retryParkedJobs(db, id))) === 0) throw new AdminError(`no parked job ${id}`);
    io.out(`queued job ${id} again`);
    return true;
  }
  if (action === 'remove') {
    allow(values, cmd, []);
    arity(rest, 1, 'jobs remove ID');
    const id = parseId(rest[0], 'ID');
    if (!(await withDb((db) => removeParkedJob(db, id)))) throw new AdminError(`no parked job ${id}`);
    io.out(`removed job ${id}`);
    return true;
  }
  return false;
}

/** `feature IMAGE_ID`: the featured image. */
async function featureCommand({ values, rest, io, withDb }: Command): Promise<boolean> {
  allow(values, 'feature', []);
  arity(rest, 1, 'feature IMAGE_ID');
  const id = parseId(rest[0], 'IMAGE_ID');
  await withDb((db) => featureImage(db, id));
  io.out(`image ${id} is now featured`);
  return true;
}

/** `image delete|restore`: deleting an image for a rule violation, and showing it again. */
async function imageCommand({ values, cmd, action, rest, io, withDb }: Command): Promise<boolean> {
  if (action === 'delete') {
    allow(values, cmd, ['reason']);
    arity(rest, 1, 'image delete IMAGE_ID --reason TEXT');
    const id = parseId(rest[0], 'IMAGE_ID');
    if (values.reason === undefined) throw new UsageError('image delete needs --reason');
    const reason = values.reason;
    await withDb((db) => deleteImage(db, id, reason));
    io.out(`image ${id} is deleted: "${reason.trim()}"`);
    return true;
  }
  if (action === 'restore') {
    allow(values, cmd, []);
    arity(rest, 1, 'image restore IMAGE_ID');
    const id = parseId(rest[0], 'IMAGE_ID');
    await withDb((db) => restoreImage(db, id));
    io.out(`image ${id} is shown again`);
    return true;
  }
  return false;
}

/** `tags IMAGE_IDS --add|--remove`: retagging images. */
async function tagsCommand({ values, rest, io, withDb }: Command): Promise<boolean> {
  allow(values, 'tags', ['add', 'remove']);
  arity(rest, 1, 'tags IMAGE_IDS [--add TAGS] [--remove TAGS]');
  if (values.add === undefined && values.remove === undefined) throw new UsageError('tags needs --add or --remove');
  const ids = rest[0]!.split(',').map((id) => parseId(id, 'IMAGE_IDS'));
  const done = await withDb((db) => retagImages(db, ids, { add: values.add, remove: values.remove }));
  io.out(`added ${done.added} and removed ${done.removed} tagging${done.added + done.removed === 1 ? '' : 's'} on ${ids.length} image${ids.length === 1 ? '' : 's'}`);
  return true;
}

/** `unban ID`: lifting a ban. */
async function unbanCommand({ values, rest, io, withDb }: Command): Promise<boolean> {
  allow(values, 'unban', []);
  arity(rest, 1, 'unban ID');
  const id = parseId(rest[0], 'ID');
  await withDb((db) => unban(db, id));
  io.out(`lifted ban ${id}`);
  return true;
}

/** `approve IMAGE_IDS`: images waiting for approval (uploads of users neither verified nor staff). */
async function approveCommand(values: Values, args: string[], io: CommandIo, withDb: WithDb): Promise<void> {
  allow(values, 'approve', []);
  arity(args, 1, 'approve IMAGE_IDS');
  const ids = args[0]!.split(',').map((id) => parseId(id, 'IMAGE_IDS'));
  const done = await withDb((db) => approveImages(db, ids));
  const already = done.already.length > 0 ? `; already approved: ${done.already.join(', ')}` : '';
  io.out(`approved ${done.approved.length} image${done.approved.length === 1 ? '' : 's'}${done.approved.length > 0 ? ` (${done.approved.join(', ')})` : ''}${already}`);
}

async function main(): Promise<number> {
  const config = loadConfigOrExit();
  let handle: Awaited<ReturnType<typeof openDatabase>> | undefined;
  const withDb = async <T>(fn: (db: Database) => Promise<T>): Promise<T> => {
    handle ??= await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, max: 2 });
    return fn(handle.db);
  };
  try {
    const bar = new ProgressBar();
    const io: CommandIo = {
      out: (line) => console.log(line),
      fileStore: () => imageStorage(config),
      progress: (phase, done, total) => bar.update(phase, done, total),
    };
    try {
      await runCommand(process.argv.slice(2), io, withDb);
    } finally {
      bar.finish();
    }
    return 0;
  } catch (err) {
    if (err instanceof UsageError) return usageErrorExit(err, USAGE);
    if (err instanceof AdminError) {
      console.error(`error: ${err.message}`);
      return 1;
    }
    console.error(`error: ${(err as Error).message ?? String(err)}`);
    return 1;
  } finally {
    await handle?.close();
  }
}

await runAsProgram(import.meta.url, main);
