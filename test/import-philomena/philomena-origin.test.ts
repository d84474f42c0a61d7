/**
 * `--origin-cdn`: a board imported without files serves its images' representations and view_url
 * from the origin, built as the reference builds them; the origin is stored with the import, so a
 * later run without the flag keeps it; images with a file of the board's own stay under CDN_URL.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sqlClientOf } from '../../src/db/client.js';
import { withImportedOrigin } from '../../src/contexts/board/origin.js';
import { createApp } from '../../src/http/app/app.js';
import { composeApp } from '../../src/http/app/compose.js';
import { openLiveSource } from '../../src/import/philomena/live-source.js';
import { migratePhilomena } from '../../src/import/philomena/run.js';
import { loadConfig } from '../../src/config.js';
import { BASE_URL, CDN_URL, SALT, SITE_NAME, serveApp, stubEngine } from '../http/harness.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { programArgs } from '../support/programs.js';
import { createPhilomenaDatabase, type PhilomenaDatabase } from '../support/philomena/database.js';
import { fixtureRows } from '../support/philomena/rows.js';
import { expectedImage } from './reference-render.js';

const exec = promisify(execFile);
const ORIGIN = 'https://derpicdn.example';
const rows: Record<string, any[]> = fixtureRows();
let target: TestDatabase;
let src: PhilomenaDatabase;
const dataDir = mkdtempSync(join(tmpdir(), 'philomena-origin-'));
const config = () => loadConfig({ BASE_URL, CDN_URL, DATA_DIR: dataDir, SITE_NAME, ANONYMOUS_NAME_SALT: SALT, DEMO_DATA: 'false', RATE_LIMITS: 'off', DATABASE_URL: target.url });

function importCli(...args: string[]) {
  return exec(process.execPath, [...programArgs('src/cli/import.ts'), 'philomena', src.url, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: target.url, DATA_DIR: dataDir, DEMO_DATA: 'false' },
    timeout: 120_000,
  });
}

/** GET an image from a server started as `npm start` starts it: with the stored origin in its configuration. */
async function servedImage(id: number): Promise<Record<string, unknown>> {
  const served = await serveApp(createApp(composeApp({ config: await withImportedOrigin(target.db, config()), db: target.db, engine: stubEngine, logger: { error: () => {} } })));
  try {
    const res = await fetch(`${served.url}/api/v1/json/images/${id}`);
    expect(res.status, `image ${id}`).toBe(200);
    return ((await res.json()) as { image: Record<string, unknown> }).image;
  } finally {
    await served.close();
  }
}

beforeAll(async () => {
  target = await createTestDatabase();
  src = await createPhilomenaDatabase('current', rows);
});
afterAll(async () => {
  await target?.drop();
  await src?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a bad --origin-cdn is refused before anything is read', async () => {
  for (const bad of ['ftp://derpicdn.example', 'derpicdn.example', 'http://derpicdn.example']) {
    const failed = await importCli('--origin-cdn', bad).catch((err) => err);
    expect(failed.code, bad).toBe(2);
    expect(failed.stderr, bad).toContain('--origin-cdn');
  }
  expect((await sqlClientOf(target.db)`select count(*)::int as n from images`)[0]!.n).toBe(0);
}, 300_000);

test('file-less images are served from the origin as the reference builds the URLs; the origin outlives later runs', async () => {
  await importCli('--origin-cdn', `${ORIGIN}/`);
  // An image the board holds a file of stays under CDN_URL.
  const local = rows.images!.find((i) => !i.hidden_from_users)!;
  await sqlClientOf(target.db)`update images set storage_key = 'local/key.png' where id = ${local.id}`;

  // A later run without the flag keeps the stored origin.
  const source = await openLiveSource(src.url);
  await migratePhilomena(target.db, source).finally(() => source.close());

  for (const image of rows.images!) {
    const served = await servedImage(image.id);
    const expected = expectedImage(rows, image, image.id === local.id ? CDN_URL : ORIGIN);
    expect(served.view_url, `image ${image.id}`).toBe(expected.view_url);
    expect(served.representations, `image ${image.id}`).toEqual(expected.representations);
  }
}, 300_000);
