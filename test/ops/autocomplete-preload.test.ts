/**
 * The autocomplete index the service (`src/main.ts`) loads at start is the one the routes read:
 * the first keystroke after start is answered from it, without loading the tags table again.
 * `autocomplete_index_loads_total` in `/metrics` counts whole loads of any autocomplete index of
 * the process; a second index (e.g. one per pool) would be a second load on the first request.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/wait.js';
import { cleanUpAfter, startService } from './service-process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-autocomplete-'));
const children: ChildProcess[] = [];

afterAll(() => cleanUpAfter(children, dataDir));

/** The whole loads of autocomplete indexes so far, from the service's `/metrics` (0 before the first). */
async function indexLoads(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = /^autocomplete_index_loads_total (\d+)$/m.exec(text);
  if (line === null) throw new Error('no autocomplete_index_loads_total in /metrics');
  return Number(line[1]);
}

describe('the autocomplete index loaded at start', () => {
  it('answers the first requests after start without another load', async () => {
    const svc = await startService(dataDir, { DEMO_IMAGES: '10', IMAGE_CACHE_WARM: 'off' });
    children.push(svc.child);
    await svc.waitFor('indexer following the outbox');
    await waitUntil('the autocomplete index loaded at start', async () => (await indexLoads(svc.base)) >= 1, 60_000);
    expect(await indexLoads(svc.base)).toBe(1);

    // the demo board's tags: a term every board has (the rating tags)
    const res = await fetch(`${svc.base}/api/v1/json/autocomplete/tags?term=saf`);
    expect(res.status).toBe(200);
    const suggestions = (await res.json()) as { label: string; value: string }[];
    expect(suggestions.map((s) => s.value)).toContain('safe');
    // "did you mean" reads the same index
    const explain = await fetch(`${svc.base}/api/v1/json/search/explain?index=images&q=saef`);
    expect(explain.status).toBe(200);
    expect(((await explain.json()) as { did_you_mean: { suggestions: string[] }[] }).did_you_mean[0]?.suggestions).toContain('safe');
    expect(await indexLoads(svc.base)).toBe(1);

    svc.child.kill('SIGTERM');
    expect((await svc.exited).code).toBe(0);
  }, 180_000);
});
