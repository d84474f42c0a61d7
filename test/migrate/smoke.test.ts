import { afterAll, beforeAll, expect, test } from 'vitest';
import { openLiveSource } from '../../src/migrate/philomena/live-source.js';
import { formatSummary, stderrReporter } from '../../src/migrate/philomena/report.js';
import { migratePhilomena } from '../../src/migrate/philomena/run.js';
import { startHarness, type Harness } from '../http/harness.js';
import { createPhilomenaDatabase, type PhilomenaDatabase } from '../support/philomena/database.js';
import { fixtureRows } from '../support/philomena/rows.js';

let h: Harness;
let src: PhilomenaDatabase;
beforeAll(async () => {
  h = await startHarness();
  src = await createPhilomenaDatabase('current', fixtureRows());
});
afterAll(async () => {
  await h?.close();
  await src?.drop();
});
test('smoke', async () => {
  const source = await openLiveSource(src.url);
  const r = await migratePhilomena(h.db, source, { reporter: stderrReporter() });
  await source.close();
  console.log(formatSummary(r.tallies), r.absent);
  const res = await h.api('/images/1');
  console.log(JSON.stringify(res.body, null, 1));
  expect(res.status).toBe(200);
});
