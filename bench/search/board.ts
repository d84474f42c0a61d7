/**
 * The benchmark board: a bulk-seeded board of N images in its own embedded PostgreSQL under
 * `bench/.cache/board-<N>/`, built once and reused while its image count and seed still match.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import { seedBulkBoard, type BulkProgress } from '../../src/seed/bulk.js';

export const BOARD_SEED = 1;

export interface Board {
  handle: DatabaseHandle;
  dir: string;
  images: number;
  /** Seconds the build took (now, or when the cached board was built). */
  buildSeconds: number;
  reused: boolean;
  builtAt: string;
}

interface Marker {
  images: number;
  seed: number;
  buildSeconds: number;
  builtAt: string;
}

function readMarker(file: string): Marker | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Marker;
  } catch {
    return undefined;
  }
}

/** Progress lines on stderr, one per phase and tenth. */
function progressPrinter(): (p: BulkProgress) => void {
  let phase = '';
  let tenth = -1;
  const started = Date.now();
  return (p) => {
    const t = p.total > 0 ? Math.floor((p.done / p.total) * 10) : 10;
    if (p.phase === phase && t === tenth) return;
    phase = p.phase;
    tenth = t;
    process.stderr.write(`  seed ${p.phase} ${t * 10}% (${p.done}/${p.total}) ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  };
}

/**
 * Open the cached board of `images` images, building it (COPY, one transaction) when it is
 * missing, has another count, or `rebuild` is asked. The caller closes `handle`.
 */
export async function openBoard(root: string, images: number, rebuild: boolean, log: (m: string) => void): Promise<Board> {
  const dir = join(root, `board-${images}`);
  const markerFile = join(dir, 'board.json');
  if (rebuild && existsSync(markerFile)) rmSync(markerFile);
  mkdirSync(dir, { recursive: true });
  const handle = await openDatabase({ dataDir: dir, max: 10 });
  try {
    const marker = readMarker(markerFile);
    const [row] = await handle.db.$client.unsafe<{ n: number }[]>('select count(*)::int as n from images');
    if (!rebuild && marker && marker.images === images && marker.seed === BOARD_SEED && row?.n === images) {
      return { handle, dir, images, buildSeconds: marker.buildSeconds, reused: true, builtAt: marker.builtAt };
    }
    log(`building a board of ${images.toLocaleString('en')} images in ${dir} (bulk COPY seed ${BOARD_SEED})`);
    await handle.db.$client.unsafe('drop table if exists bench_images');
    const started = performance.now();
    await seedBulkBoard(handle.db, { images, seed: BOARD_SEED, force: true, onProgress: progressPrinter() });
    const buildSeconds = (performance.now() - started) / 1000;
    const builtAt = new Date().toISOString();
    writeFileSync(markerFile, `${JSON.stringify({ images, seed: BOARD_SEED, buildSeconds, builtAt } satisfies Marker)}\n`);
    return { handle, dir, images, buildSeconds, reused: false, builtAt };
  } catch (err) {
    await handle.close();
    throw err;
  }
}
