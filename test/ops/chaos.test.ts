/**
 * Chaos: writers through the API (uploads by URL, three at a time) and through the import CLI (a
 * new small board file per run, imported while the service serves), and the service killed with
 * SIGKILL at a random moment of each round, then started again on the same DATA_DIR (it adopts
 * the PostgreSQL the killed one left). After the last round, one more start:
 * - every write that was acknowledged (an upload answered 200, an import that exited 0) is in the
 *   board and searchable (its own tag finds it, with the Everything filter);
 * - a graceful stop exits 0, and `npm run indexer -- verify` then finds no drift.
 *
 * CHAOS_ROUNDS sets the number of rounds: 2 by default (the short form the suite and CI run);
 * more for a long run (e.g. CHAOS_ROUNDS=20), whose counts are printed at the end.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive } from '../../src/db/embedded-postgres.js';
import { startHttpsServer, type TestHttpsServer } from '../support/https-server.js';
import { runTool } from '../support/run-tool.js';
import { postgresPid, type Service, startService } from './service-process.js';

const ROUNDS = Number(process.env.CHAOS_ROUNDS ?? '2');
/**
 * Imported records take ids downwards from here. The import moves each id sequence past the ids
 * it writes, so later uploads take ids above this; ids that went upwards would be taken by
 * uploads between two imports, and the next import would then overwrite those images (an import
 * keeps ids and updates what it finds).
 */
const IMPORT_BASE = 5_000_000;

let dataDir: string;
let files: TestHttpsServer;
const children: ChildProcess[] = [];
const served = new Map<string, Buffer>();

interface Write {
  via: 'api' | 'import';
  /** The tag only this write carries. */
  tag: string;
  id?: number;
  acknowledged: boolean;
  /** What refused it, if it was answered but not acknowledged. */
  refusal?: string;
}
const writes: Write[] = [];
const counts = { rounds: 0, uploadsSent: 0, importsRun: 0, kills: 0 };

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tagwise-chaos-'));
  files = await startHttpsServer((req: IncomingMessage, res: ServerResponse) => {
    const bytes = served.get((req.url ?? '/').split('?')[0]!);
    if (!bytes) return void res.writeHead(404).end('not found');
    // answered after a short while, so that some uploads are in flight at the kill
    setTimeout(() => !res.destroyed && res.writeHead(200, { 'content-length': String(bytes.length) }).end(bytes), Math.random() * 1_500);
  });
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await files?.close();
  await sleep(300);
  const pid = dataDir ? postgresPid(dataDir) : undefined;
  if (pid && isAlive(pid)) {
    process.kill(pid, 'SIGINT');
    for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(100);
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  console.log(`chaos counts: ${JSON.stringify({ ...counts, ...tally() })}`);
});

function tally() {
  const by = (via: Write['via']) => writes.filter((w) => w.via === via);
  return {
    uploadsAcknowledged: by('api').filter((w) => w.acknowledged).length,
    importsAcknowledged: by('import').filter((w) => w.acknowledged).length,
    unacknowledged: writes.filter((w) => !w.acknowledged).length,
    refusals: [...new Set(writes.flatMap((w) => (w.refusal ? [w.refusal] : [])))].slice(0, 5),
  };
}

async function start(): Promise<Service> {
  const svc = await startService(dataDir, { DEMO_IMAGES: '20', RATE_LIMITS: 'off', FETCH_ALLOW_HOSTS: files.hostPort });
  children.push(svc.child);
  await svc.waitFor('indexer following the outbox', 180_000);
  return svc;
}

let imageCounter = 0;
async function pngFor(n: number): Promise<Buffer> {
  return sharp({ create: { width: 64 + (n % 50), height: 48, channels: 3, background: { r: (n * 37) % 256, g: (n * 91) % 256, b: (n * 13) % 256 } } })
    .png()
    .toBuffer();
}

/** Upload loops until `stop()`: each upload carries a tag of its own. */
function apiWriters(svc: Service, key: string, concurrency: number) {
  let running = true;
  const loops = Array.from({ length: concurrency }, async () => {
    while (running) {
      const n = ++imageCounter;
      const write: Write = { via: 'api', tag: `chaosu${n}`, acknowledged: false };
      writes.push(write);
      served.set(`/files/${n}.png`, await pngFor(n));
      counts.uploadsSent++;
      try {
        const res = await fetch(`${svc.base}/api/v1/json/images?key=${encodeURIComponent(key)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ url: `${files.origin}/files/${n}.png`, image: { tag_input: `safe, chaos, ${write.tag}`, description: `chaos ${n}` } }),
        });
        const body = (await res.json().catch(() => null)) as { image?: { id: number } } | null;
        if (res.status === 200 && body?.image) {
          write.acknowledged = true;
          write.id = body.image.id;
        } else write.refusal = `${res.status} ${JSON.stringify(body)}`;
      } catch {
        return; // the service is gone
      }
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

let importCounter = 0;
/** Import CLI runs one after another until `stop()`, each importing two new tagged images. */
function importWriter() {
  let running = true;
  const loop = (async () => {
    while (running) {
      const k = ++importCounter;
      const batch = [0, 1].map((j) => ({ id: IMPORT_BASE - k * 2 - j, tag: `chaosi${k * 2 + j}` }));
      const board = {
        tags: batch.map((b) => ({ id: b.id, name: b.tag, slug: b.tag, category: null, images: 1 })),
        images: batch.map((b) => ({
          id: b.id,
          created_at: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          width: 100,
          height: 80,
          format: 'png',
          mime_type: 'image/png',
          tag_ids: [b.id],
          tags: [b.tag],
        })),
      };
      const file = join(dataDir, `chaos-import-${k}.json`);
      writeFileSync(file, JSON.stringify(board));
      const records: Write[] = batch.map((b) => ({ via: 'import', tag: b.tag, id: b.id, acknowledged: false }));
      writes.push(...records);
      counts.importsRun++;
      const run = await runTool('src/cli/import.ts', [file], { DATA_DIR: dataDir }, 180_000);
      if (run.code === 0) for (const r of records) r.acknowledged = true;
      else if (!/ECONNREFUSED|terminating connection|connection/i.test(run.stderr)) throw new Error(`import failed:\n${run.stderr.slice(-2000)}`);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}

async function everythingFilter(svc: Service): Promise<number> {
  const body = (await (await fetch(`${svc.base}/api/v1/json/filters/system`)).json()) as { filters: { id: number; name: string }[] };
  return body.filters.find((f) => f.name === 'Everything')!.id;
}

describe(`chaos: writers through the API and the import CLI, SIGKILL at random moments, ${ROUNDS} rounds`, () => {
  let key = '';

  it('every round: writers run, the service is killed at a random moment and restarted', async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const svc = await start();
      if (key === '') {
        const created = await runTool('src/cli/admin.ts', ['user', 'create', 'chaosadmin', '--role', 'admin'], { DATA_DIR: dataDir });
        expect(created.code, created.stderr).toBe(0);
        const issued = await runTool('src/cli/admin.ts', ['key', 'issue', 'chaosadmin'], { DATA_DIR: dataDir });
        expect(issued.code, issued.stderr).toBe(0);
        key = issued.stdout.trim().split('\n').pop()!.trim();
      }
      const api = apiWriters(svc, key, 3);
      const imports = importWriter();
      await sleep(1_000 + Math.random() * 5_000);
      svc.child.kill('SIGKILL');
      expect((await svc.exited).signal).toBe('SIGKILL');
      counts.kills++;
      await Promise.all([api.stop(), imports.stop()]);
      counts.rounds++;
    }
    expect(tally().uploadsAcknowledged).toBeGreaterThan(0);
    expect(tally().importsAcknowledged).toBeGreaterThan(0);
  }, ROUNDS * 300_000);

  it('after a last restart every acknowledged write is there and searchable; a graceful stop; no drift', async () => {
    const svc = await start();
    const everything = await everythingFilter(svc);
    const missing: string[] = [];
    const deadline = Date.now() + 120_000;
    for (const w of writes.filter((x) => x.acknowledged)) {
      for (;;) {
        const res = await fetch(`${svc.base}/api/v1/json/search/images?q=${encodeURIComponent(w.tag)}&filter_id=${everything}`);
        const body = (await res.json()) as { images: { id: number }[] };
        if (res.status === 200 && body.images.some((i) => i.id === w.id)) break;
        if (Date.now() > deadline) {
          missing.push(`${w.via} ${w.tag} #${w.id}: ${res.status}`);
          break;
        }
        await sleep(250);
      }
      const shown = await fetch(`${svc.base}/api/v1/json/images/${w.id}`);
      if (shown.status !== 200) missing.push(`${w.via} #${w.id} answers ${shown.status}`);
    }
    expect(missing).toEqual([]);

    svc.child.kill('SIGTERM');
    expect(await svc.exited).toEqual({ code: 0, signal: null });
    const verify = await runTool('indexer/cli.ts', ['verify'], { DATA_DIR: dataDir }, 300_000);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  }, 600_000);
});
