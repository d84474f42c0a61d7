/**
 * Faults: the service as a process (`src/main.ts`, embedded PostgreSQL and embedded engine under a
 * temporary DATA_DIR, a 20-image demo board) killed with SIGKILL three times, each time in the
 * middle of something, and restarted on the same DATA_DIR (the PostgreSQL it leaves running is
 * adopted by the next start):
 *
 * 1. a burst of concurrent uploads, some answered and some in flight (files served slowly);
 * 2. image processing: uploads accepted one after the other, their jobs done, queued and running;
 * 3. indexing: a burst of small transactions in SQL (faves, taggings, untaggings, a tag rename
 *    fanning out to every image that carries it) with the outbox busy; the rest of the burst
 *    commits while the service is down.
 *
 * The change burst runs in every round, and uploads in the third. After one more restart:
 * - every upload answered 200 is in the database with its tags (nothing committed is lost); an
 *   upload that got no answer is either absent or whole (tags, stored original, one job);
 * - every accepted image is processed, with every representation served. A job a killed process
 *   left `running` is only taken again once its lock is STALE_LOCK_SECONDS old: the test ages
 *   those locks instead of waiting, and reports how many there were;
 * - the indices agree with SQL: `/search/images` with the Everything filter (`*`, the changed
 *   tags, the renamed tag's old and new names, `faved_by_id:` of the changed users, the uploads,
 *   unprocessed images) gives the totals and ids SQL gives, with nothing pending in the outbox;
 * - a graceful SIGTERM exits 0 with its PostgreSQL stopped (no postmaster.pid left), and
 *   `npm run indexer -- verify` then finds no drift;
 * - no upload was answered with an error (500s are collected across rounds and checked last, so
 *   that they do not hide the crash checks).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive, startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { STALE_LOCK_SECONDS } from '../../src/jobs/index.js';
import { startHttpsServer, type TestHttpsServer } from '../support/https-server.js';
import { waitUntil } from '../support/wait.js';
import { runTool } from '../support/run-tool.js';
import { postgresPid, type Service, startService } from './service-process.js';

// ---------------------------------------------------------------------------------------------
// The board's files, served by a local https server

/** A distinct image (its own bytes) of a size that makes every processing step do real work. */
async function makeImage(n: number): Promise<{ bytes: Buffer; ext: string }> {
  const hue = (n * 47) % 360;
  const w = 900 + (n % 5) * 40;
  const h = 700;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">
    <rect width="100%" height="100%" fill="hsl(${hue},60%,70%)"/>
    <circle cx="${100 + ((n * 53) % 700)}" cy="${100 + ((n * 31) % 500)}" r="${60 + (n % 7) * 10}" fill="hsl(${(hue + 180) % 360},70%,40%)"/>
    <rect x="${(n * 17) % 600}" y="${(n * 29) % 400}" width="200" height="120" fill="hsl(${(hue + 90) % 360},50%,50%)"/>
    <text x="40" y="${h - 40}" font-size="64" fill="#222">fault ${n}</text></svg>`;
  const image = sharp(Buffer.from(svg));
  return n % 2 === 0 ? { bytes: await image.png().toBuffer(), ext: 'png' } : { bytes: await image.jpeg({ quality: 85 }).toBuffer(), ext: 'jpg' };
}

interface Upload {
  round: number;
  n: number;
  /** The tag only this upload carries. */
  tag: string;
  tags: string[];
  /** 200 with the new image's id; `error` when the answer never came (the service was killed). */
  outcome: 'pending' | 'ok' | 'rejected' | 'error';
  status?: number;
  id?: number;
  body?: unknown;
}

// ---------------------------------------------------------------------------------------------

const SERVICE_ENV = { DEMO_IMAGES: '20', RATE_LIMITS: 'off' };
const UPLOAD_TAG = 'faultupload';

let dataDir: string;
let files: TestHttpsServer;
/** Path on the file server → bytes and how long to hold the answer. */
const served = new Map<string, { bytes: Buffer; delayMs: number }>();
let service: Service | undefined;
const children: ChildProcess[] = [];
let sql: postgres.Sql | undefined;
let key = '';
const uploads: Upload[] = [];
let imageCounter = 0;
let postgresPidAtStart: number | undefined;
/** Users whose faves change in each round, and the tags each round adds. */
const faveUsers: number[] = [];
const changeTags: { name: string; id: number }[] = [];
const findings: string[] = [];
/** Error lines of every service run, for the failure message of the server-error check. */
const serverErrors: string[] = [];

const note = (msg: string) => {
  findings.push(msg);
  console.log(`fault: ${msg}`);
};

function env(): Record<string, string> {
  return { ...SERVICE_ENV, FETCH_ALLOW_HOSTS: files.hostPort };
}

async function start(): Promise<Service> {
  const svc = await startService(dataDir, env());
  children.push(svc.child);
  service = svc;
  await svc.waitFor('indexer following the outbox', 150_000);
  return svc;
}

/** The service's error lines (level 50 and up), for failure messages. */
function errorLines(svc: Service): string {
  return svc.lines
    .filter((l) => Number(l.level) >= 50)
    .map((l) => JSON.stringify(l))
    .join('\n')
    .slice(-4000);
}

async function kill(svc: Service): Promise<void> {
  const errors = errorLines(svc);
  if (errors) serverErrors.push(errors);
  svc.child.kill('SIGKILL');
  const exit = await svc.exited;
  expect(exit.signal).toBe('SIGKILL');
  service = undefined;
}

/** Start one upload; the file is answered after `delayMs`. */
function upload(svc: Service, round: number, delayMs: number, bytes: Buffer, ext: string): { record: Upload; done: Promise<void> } {
  const n = ++imageCounter;
  const tag = `faultr${round}u${n}`;
  const path = `/files/${n}.${ext}`;
  served.set(path, { bytes, delayMs });
  const record: Upload = { round, n, tag, tags: ['safe', UPLOAD_TAG, tag], outcome: 'pending' };
  uploads.push(record);
  const done = fetch(`${svc.base}/api/v1/json/images?key=${encodeURIComponent(key)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${files.origin}${path}`, image: { tag_input: record.tags.join(', '), description: `fault round ${round}` } }),
  }).then(
    async (res) => {
      record.status = res.status;
      const body = (await res.json().catch(() => null)) as { image?: { id: number } } | null;
      record.body = body;
      if (res.status === 200 && body?.image) {
        record.outcome = 'ok';
        record.id = body.image.id;
      } else record.outcome = 'rejected';
    },
    () => {
      record.outcome = 'error';
    },
  );
  return { record, done };
}

async function uploadBurst(svc: Service, round: number, delays: number[]): Promise<{ records: Upload[]; all: Promise<void> }> {
  const made = await Promise.all(delays.map(() => makeImage(imageCounter + 1 + Math.floor(Math.random() * 1e6))));
  const started = made.map((m, i) => upload(svc, round, delays[i]!, m.bytes, m.ext));
  return { records: started.map((s) => s.record), all: Promise.all(started.map((s) => s.done)).then(() => {}) };
}

/** Ids of the images search can show (approved, not deleted). */
async function visibleImageIds(): Promise<number[]> {
  const rows = await sql!<{ id: number }[]>`select id from images where approved and not hidden_from_users order by id`;
  return rows.map((r) => r.id);
}

/**
 * The change burst of a round, one small transaction per image: the round's user faves it and the
 * round's tag is added; from round 3 on, every other image also loses round 1's fave and tag.
 * `onStep` is called after each commit (the caller may kill the service there).
 */
async function changeBurst(round: number, onStep?: (done: number, total: number) => void | Promise<void>): Promise<number> {
  const userId = faveUsers[round - 1]!;
  const tag = changeTags[round - 1]!;
  const ids = await visibleImageIds();
  let done = 0;
  for (const [i, imageId] of ids.entries()) {
    await sql!.begin(async (tx) => {
      const faved = await tx`insert into image_faves (image_id, user_id) values (${imageId}, ${userId}) on conflict do nothing returning image_id`;
      if (faved.length > 0) await tx`update images set faves_count = faves_count + 1 where id = ${imageId}`;
      const tagged = await tx`insert into image_taggings (image_id, tag_id, position) values (${imageId}, ${tag.id}, ${100 + round}) on conflict do nothing returning image_id`;
      if (tagged.length > 0) await tx`update tags set images_count = images_count + 1 where id = ${tag.id}`;
      if (round >= 3 && i % 2 === 0) {
        const unfaved = await tx`delete from image_faves where image_id = ${imageId} and user_id = ${faveUsers[0]!} returning image_id`;
        if (unfaved.length > 0) await tx`update images set faves_count = faves_count - 1 where id = ${imageId}`;
        const untagged = await tx`delete from image_taggings where image_id = ${imageId} and tag_id = ${changeTags[0]!.id} returning image_id`;
        if (untagged.length > 0) await tx`update tags set images_count = images_count - 1 where id = ${changeTags[0]!.id}`;
      }
    });
    done++;
    await onStep?.(done, ids.length);
  }
  return done;
}

/** Image ids that have a directory in the store (`Y/M/D/ID/`). */
function imageDirs(root: string): number[] {
  const ids: number[] = [];
  const sub = (dir: string) => (existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join(dir, d.name)) : []);
  for (const y of sub(root)) for (const m of sub(y)) for (const d of sub(m)) for (const id of sub(d)) ids.push(Number(id.slice(id.lastIndexOf('/') + 1)));
  return ids.filter((n) => Number.isInteger(n)).sort((a, b) => a - b);
}

async function searchTotal(svc: Service, q: string, everything: number): Promise<{ total: number; ids: number[] }> {
  const ids: number[] = [];
  let total = 0;
  for (let page = 1; page <= 10; page++) {
    const res = await fetch(`${svc.base}/api/v1/json/search/images?q=${encodeURIComponent(q)}&filter_id=${everything}&per_page=50&page=${page}`);
    expect(res.status, q).toBe(200);
    const body = (await res.json()) as { total: number; images: { id: number }[] };
    total = body.total;
    ids.push(...body.images.map((i) => i.id));
    if (ids.length >= total || body.images.length === 0) break;
  }
  return { total, ids: ids.sort((a, b) => a - b) };
}

async function pendingOutbox(svc: Service): Promise<number> {
  const text = await (await fetch(`${svc.base}/metrics`)).text();
  const m = /^search_outbox_pending (\d+)/m.exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

// ---------------------------------------------------------------------------------------------

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tagwise-fault-'));
  files = await startHttpsServer((req: IncomingMessage, res: ServerResponse) => {
    const file = served.get((req.url ?? '/').split('?')[0]!);
    if (!file) {
      res.writeHead(404).end('not found');
      return;
    }
    setTimeout(() => {
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(file.bytes.length) });
      res.end(file.bytes);
    }, file.delayMs);
  });
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await sql?.end({ timeout: 2 }).catch(() => {});
  await files?.close();
  await sleep(200);
  if (dataDir) {
    // a PostgreSQL left behind by a failed test: stop it before removing its files
    const pid = postgresPid(dataDir);
    if (pid && isAlive(pid)) {
      process.kill(pid, 'SIGINT');
      for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(100);
      if (isAlive(pid)) process.kill(pid, 'SIGQUIT');
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (findings.length > 0) console.log(`fault findings:\n  ${findings.join('\n  ')}`);
});

describe('SIGKILL in the middle of uploads, processing and indexing, then restarts', () => {
  it('round 1: killed during a burst of uploads (some answered, some in flight)', async () => {
    const svc = await start();
    postgresPidAtStart = postgresPid(dataDir);
    expect(postgresPidAtStart).toBeDefined();

    // The test's own connection to the service's PostgreSQL (joined, never stopped by us).
    const pg = await startEmbeddedPostgres(dataDir);
    expect(pg.owned).toBe(false);
    sql = postgres(pg.url, { max: 3, onnotice: () => {} });

    const name = 'faultadmin';
    const created = await runTool('src/cli/admin.ts', ['user', 'create', name, '--role', 'admin'], { DATA_DIR: dataDir });
    expect(created.code, created.stderr).toBe(0);
    const issued = await runTool('src/cli/admin.ts', ['key', 'issue', name], { DATA_DIR: dataDir });
    expect(issued.code, issued.stderr).toBe(0);
    key = issued.stdout.trim().split('\n').pop()!.trim();
    expect(key.length).toBeGreaterThan(10);

    const users = await sql<{ id: number }[]>`select id from users where name <> ${name} order by id limit 3`;
    faveUsers.push(...users.map((u) => u.id));
    for (const round of [1, 2, 3]) {
      const tagName = `faultchange${round}`;
      const [row] = await sql<{ id: number }[]>`insert into tags (name, slug, name_in_namespace) values (${tagName}, ${tagName}, ${tagName}) returning id`;
      changeTags.push({ name: tagName, id: row!.id });
    }

    // Files answered after 0 s … 8 s: the kill lands with some uploads answered and others waiting.
    const burst = await uploadBurst(svc, 1, [0, 0, 100, 300, 2_500, 4_000, 6_000, 8_000]);
    const changes = changeBurst(1);
    await waitUntil('three answered uploads', async () => burst.records.filter((r) => r.outcome !== 'pending').length >= 3, 60_000, 50);
    const inFlight = burst.records.filter((r) => r.outcome === 'pending').length;
    await kill(svc);
    await burst.all;
    await changes;
    const answered = burst.records.filter((r) => r.outcome === 'ok').length;
    const failed = burst.records.filter((r) => r.outcome === 'rejected').length;
    note(`round 1: killed with ${answered} uploads answered 200, ${failed} answered with an error and ${inFlight} in flight`);
    expect(answered).toBeGreaterThanOrEqual(1);
    expect(inFlight).toBeGreaterThanOrEqual(1);
  }, 300_000);

  it('round 2: killed while images are being processed (jobs queued and running)', async () => {
    const svc = await start();
    expect(svc.lines.some((l) => String(l.msg).startsWith('adopted embedded PostgreSQL'))).toBe(true);
    expect(postgresPid(dataDir)).toBe(postgresPidAtStart);
    const roundStart = (await sql!<{ now: Date }[]>`select now() as now`)[0]!.now;

    // Uploads one after the other: each is accepted and queues its job while the worker runs.
    const changes = changeBurst(2);
    const records: Upload[] = [];
    for (let i = 0; i < 6; i++) {
      const image = await makeImage(imageCounter + 1);
      const started = upload(svc, 2, 0, image.bytes, image.ext);
      await started.done;
      records.push(started.record);
    }
    expect(records.filter((r) => r.outcome !== 'ok').map((r) => [r.status, r.body]), errorLines(svc)).toEqual([]);
    // A job of this round running: kill a moment after it was claimed, mid-way through its files.
    const running = await waitUntil(
      'a running processing job',
      async () => {
        const rows = await sql!<{ id: number }[]>`select id from jobs where kind = 'process-image' and state = 'running' and locked_at >= ${roundStart}`;
        return rows.length > 0 ? rows : undefined;
      },
      60_000,
      20,
    );
    await sleep(Math.floor(Math.random() * 300));
    const states = await sql!<{ state: string; n: number }[]>`select state, count(*)::int as n from jobs group by state order by state`;
    await kill(svc);
    await changes;
    note(`round 2: killed with job ${running[0]!.id} running; jobs by state ${states.map((s) => `${s.state} ${s.n}`).join(', ')}`);
    expect(states.find((s) => s.state === 'running')?.n ?? 0).toBeGreaterThan(0);
  }, 300_000);

  it('round 3: killed while the indexer works through a burst of changes', async () => {
    const svc = await start();
    expect(postgresPid(dataDir)).toBe(postgresPidAtStart);
    const burst = await uploadBurst(svc, 3, [0, 0, 0, 500]);
    let killedAt = -1;
    let pendingAtKill = Number.NaN;
    const killing: Promise<void>[] = [];
    const done = await changeBurst(3, async (step, total) => {
      if (step === Math.floor(total / 2)) {
        // a tag rename: every image carrying the tag changes (a fan-out in the outbox)
        await sql!`update tags set name = 'faultrenamed2', slug = 'faultrenamed2', name_in_namespace = 'faultrenamed2' where id = ${changeTags[1]!.id}`;
        changeTags[1]!.name = 'faultrenamed2';
        pendingAtKill = await pendingOutbox(svc);
        killedAt = step;
        killing.push(kill(svc));
      }
    });
    await Promise.all(killing);
    await burst.all;
    note(`round 3: killed after ${killedAt} of ${done} change transactions, with ${pendingAtKill} outbox changes pending (the rest committed while the service was down)`);
    expect(killedAt).toBeGreaterThan(0);
  }, 300_000);

  it('after a last restart: nothing committed is lost, every accepted image is processed, the indices converge', async () => {
    const restartedAt = (await sql!<{ now: Date }[]>`select now() as now`)[0]!.now;
    const svc = await start();
    expect(postgresPid(dataDir)).toBe(postgresPidAtStart);

    // 1. Every upload answered 200 is in the database with its tags.
    const ok = uploads.filter((u) => u.outcome === 'ok');
    expect(ok.length).toBeGreaterThanOrEqual(7);
    const tagsOf = async (ids: number[]) => {
      const rows = await sql!<{ image_id: number; name: string }[]>`
        select it.image_id, t.name from image_taggings it join tags t on t.id = it.tag_id where it.image_id in ${sql!(ids)}`;
      const map = new Map<number, string[]>();
      for (const r of rows) map.set(r.image_id, [...(map.get(r.image_id) ?? []), r.name]);
      return map;
    };
    const stored = await tagsOf(ok.map((u) => u.id!));
    const lost = ok.filter((u) => !u.tags.every((t) => stored.get(u.id!)?.includes(t)));
    expect(lost.map((u) => ({ id: u.id, tag: u.tag, stored: stored.get(u.id!) }))).toEqual([]);

    // An upload that got no answer is either absent or whole (tags, a job, its original stored).
    const unanswered = uploads.filter((u) => u.outcome === 'error');
    const [uploader] = await sql!<{ id: number }[]>`select id from users where name = 'faultadmin'`;
    const mine = await sql!<{ id: number; description: string; storage_key: string | null }[]>`
      select id, description, storage_key from images where user_id = ${uploader!.id} order by id`;
    const committedUnanswered = mine.filter((m) => !ok.some((u) => u.id === m.id));
    const partial = await tagsOf(committedUnanswered.map((m) => m.id).concat([0]));
    for (const m of committedUnanswered) {
      expect(partial.get(m.id), `image ${m.id}`).toEqual(expect.arrayContaining(['safe', UPLOAD_TAG]));
      expect(m.storage_key, `image ${m.id}`).not.toBeNull();
    }
    note(`${ok.length} uploads answered 200 (all stored with their tags); ${unanswered.length} got no answer, of which ${committedUnanswered.length} committed whole and the rest left nothing in the database`);
    // Files of uploads whose transaction never committed (written before the commit) stay behind.
    const allIds = new Set((await sql!<{ id: number }[]>`select id from images`).map((r) => r.id));
    const orphanDirs = imageDirs(join(dataDir, 'images')).filter((id) => !allIds.has(id));
    if (orphanDirs.length > 0) note(`${orphanDirs.length} image director${orphanDirs.length === 1 ? 'y' : 'ies'} without a row (uploads killed before their commit): ${orphanDirs.join(', ')} — garbage, not loss`);
    // Every upload created exactly one job.
    const jobs = await sql!<{ image_id: number; n: number }[]>`
      select (payload->>'imageId')::int as image_id, count(*)::int as n from jobs where kind = 'process-image' group by 1`;
    for (const m of mine) expect(jobs.find((j) => j.image_id === m.id)?.n, `jobs of image ${m.id}`).toBe(1);

    // 2. Every accepted image is processed. A job left running by a killed process waits until its
    //    lock is STALE_LOCK_SECONDS old; let that time pass for jobs locked before this start.
    const orphaned = await sql!<{ id: number }[]>`select id from jobs where state = 'running' and locked_at < ${restartedAt}`;
    if (orphaned.length > 0) {
      note(`${orphaned.length} processing job(s) left 'running' by the killed processes are not retried by the restarted service for ${STALE_LOCK_SECONDS} s (stale lock): aged here to let them run`);
      await sql!`update jobs set locked_at = now() - ${`${STALE_LOCK_SECONDS + 60} seconds`}::interval where id in ${sql!(orphaned.map((o) => o.id))}`;
      await sql!`select pg_notify('jobs', 'process-image')`;
    }
    // A job writes its image, then marks itself done in a later statement: wait for both.
    await waitUntil(
      'every upload processed and its job done',
      async () => {
        const [row] = await sql!<{ n: number; open: number }[]>`
          select (select count(*)::int from images where user_id = ${uploader!.id} and not (processed and thumbnails_generated)) as n,
                 (select count(*)::int from jobs where state = 'running') as open`;
        return row!.n === 0 && row!.open === 0;
      },
      150_000,
      500,
    );
    const jobStates = await sql!<{ state: string; n: number; errors: string[] }[]>`
      select state, count(*)::int as n, array_remove(array_agg(distinct last_error), null) as errors from jobs where kind = 'process-image' group by state`;
    expect(jobStates.map((s) => [s.state, s.n])).toEqual([['done', mine.length]]);
    const retried = await sql!<{ n: number }[]>`select count(*)::int as n from jobs where attempts > 1`;
    note(`all ${mine.length} accepted images processed; ${retried[0]!.n} job(s) ran more than once`);
    // every file of every image is served
    for (const m of mine) {
      const res = await fetch(`${svc.base}/api/v1/json/images/${m.id}`);
      const { image } = (await res.json()) as { image: { processed: boolean; thumbnails_generated: boolean; representations: Record<string, string> } };
      expect([image.processed, image.thumbnails_generated], `image ${m.id}`).toEqual([true, true]);
      for (const [name, url] of Object.entries(image.representations)) {
        const file = await fetch(`${svc.base}${new URL(url).pathname}`);
        expect(file.status, `image ${m.id} ${name} ${url}`).toBe(200);
        const bytes = Buffer.from(await file.arrayBuffer());
        expect(bytes.length, `image ${m.id} ${name}`).toBeGreaterThan(100);
      }
    }

    // 3. The indices converge with SQL.
    const filters = (await (await fetch(`${svc.base}/api/v1/json/filters/system`)).json()) as { filters: { id: number; name: string }[] };
    const everything = filters.filters.find((f) => f.name === 'Everything')!.id;
    const expectations = async () => {
      const visible = await visibleImageIds();
      const checks: { q: string; ids: number[] }[] = [{ q: '*', ids: visible }];
      for (const tag of changeTags) {
        const rows = await sql!<{ id: number }[]>`
          select i.id from images i join image_taggings it on it.image_id = i.id
          where it.tag_id = ${tag.id} and i.approved and not i.hidden_from_users order by i.id`;
        checks.push({ q: tag.name, ids: rows.map((r) => r.id) });
      }
      checks.push({ q: 'faultchange2', ids: [] });
      for (const user of faveUsers) {
        const rows = await sql!<{ id: number }[]>`
          select i.id from images i join image_faves f on f.image_id = i.id
          where f.user_id = ${user} and i.approved and not i.hidden_from_users order by i.id`;
        checks.push({ q: `faved_by_id:${user}`, ids: rows.map((r) => r.id) });
      }
      checks.push({ q: UPLOAD_TAG, ids: mine.map((m) => m.id) });
      checks.push({ q: 'processed:false || thumbnails_generated:false', ids: (await sql!<{ id: number }[]>`select id from images where approved and not hidden_from_users and not (processed and thumbnails_generated) order by id`).map((r) => r.id) });
      return checks;
    };
    let mismatches: unknown[] = [];
    const converged = await waitUntil(
      'search to agree with SQL',
      async () => {
        if ((await pendingOutbox(svc)) !== 0) return undefined;
        mismatches = [];
        for (const check of await expectations()) {
          const found = await searchTotal(svc, check.q, everything);
          if (found.total !== check.ids.length || JSON.stringify(found.ids) !== JSON.stringify(check.ids)) {
            mismatches.push({ q: check.q, search: found, sql: check.ids });
          }
        }
        return mismatches.length === 0 ? true : undefined;
      },
      60_000,
      1_000,
    ).catch((err: Error) => err);
    expect(mismatches).toEqual([]);
    expect(converged).toBe(true);
    const ready = await fetch(`${svc.base}/readyz`);
    expect(await ready.json()).toEqual({ status: 'ready', database: 'up', engine: 'up', indexer: 'up', storage: 'up' });
    note(`search agrees with SQL: ${(await expectations()).map((c) => `${c.q}=${c.ids.length}`).join(', ')}`);
  }, 360_000);

  it('a graceful stop exits 0 and leaves no PostgreSQL behind', async () => {
    const svc = service!;
    await sql!.end({ timeout: 5 });
    sql = undefined;
    const pidFile = join(dataDir, 'postgres', 'postmaster.pid');
    const pgPid = postgresPid(dataDir)!;
    const signalled = Date.now();
    svc.child.kill('SIGTERM');
    const exit = await svc.exited;
    const stoppedMs = Date.now() - signalled;
    service = undefined;
    const atExit = { postmasterPidFile: existsSync(pidFile), postgresRunning: isAlive(pgPid) };
    if (atExit.postmasterPidFile || atExit.postgresRunning) {
      // how long the server outlived the service that said it stopped it
      const since = Date.now();
      while ((existsSync(pidFile) || isAlive(pgPid)) && Date.now() - since < 20_000) await sleep(50);
      note(`the service exited ${exit.code} after ${stoppedMs} ms with its PostgreSQL still running; the server was gone ${Date.now() - since} ms later`);
    }
    expect(exit, svc.output().slice(-3000)).toEqual({ code: 0, signal: null });
    expect(svc.lines.find((l) => l.msg === 'stopped')).toMatchObject({ clean: true });
    expect(atExit, svc.output().slice(-3000)).toEqual({ postmasterPidFile: false, postgresRunning: false });
  }, 120_000);

  it('the indexer finds no drift between the indices and the database', async () => {
    const pidFile = join(dataDir, 'postgres', 'postmaster.pid');
    for (let i = 0; i < 200 && existsSync(pidFile); i++) await sleep(100);
    const verify = await runTool('indexer/cli.ts', ['verify', '--json'], { DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, 180_000);
    const report = (() => {
      try {
        return JSON.parse(verify.stdout) as { ok: boolean; indexes: { index: string; ok: boolean; missingCount: number; extraCount: number; mismatched: unknown[] }[] };
      } catch {
        return { ok: false, indexes: [], raw: verify.stdout.slice(-2000), stderr: verify.stderr.slice(-2000) };
      }
    })();
    expect(report.indexes.length).toBeGreaterThan(0);
    expect(report.indexes.filter((i) => !i.ok), JSON.stringify(report).slice(0, 3000)).toEqual([]);
    expect(verify.code, verify.stderr.slice(-2000)).toBe(0);
    note(`indexer verify: ${report.indexes.map((i) => `${i.index} ok`).join(', ')}`);
    // the verify run started and stopped its own PostgreSQL
    expect(existsSync(pidFile)).toBe(false);
  }, 240_000);

  it('no upload was answered with an error (only the kills may leave one unanswered)', () => {
    const failed = uploads.filter((u) => u.outcome === 'rejected');
    if (failed.length > 0) note(`${failed.length} of ${uploads.length} uploads answered ${[...new Set(failed.map((u) => u.status))].join('/')}`);
    expect(failed.map((u) => [u.round, u.status, u.body]), serverErrors.join('\n').slice(0, 4000)).toEqual([]);
  });
});
