/**
 * The app's routes fit Hono's RegExpRouter, the fast one: its SmartRouter tries it first and falls
 * back to the TrieRouter when a route cannot be held (a fixed name beside a parameter in the same
 * place, as `/images/featured` beside `/images/:image_id` was). The fall-back answers the same, only
 * slower, so nothing but this test would notice a route that brings it back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app/app.js';
import { composeApp } from '../../src/http/app/compose.js';
import { startHarness, stubEngine, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('the router', () => {
  it('is the RegExpRouter once the first request is matched', async () => {
    const app = createApp(composeApp({ config: h.config, db: h.db, engine: stubEngine, logger: { error: () => undefined } }));
    expect((await app.request('/api/v1/json/images/1')).status).toBe(404);
    expect(app.router.name).toBe('SmartRouter + RegExpRouter');
  });

  it('answers the fixed names that share a place with an id', async () => {
    expect((await h.api('/images/featured')).status).toBe(404);
    expect((await h.api('/filters/system')).status).toBe(200);
    expect((await h.api('/filters/user')).status).toBe(403);
    expect((await h.api('/filters/1.0')).status).toBe(404);
    expect((await h.api('/filters/test?sample=0')).status).not.toBe(404);
    expect((await h.request('/dumps/latest.json')).status).toBe(404);
    expect((await h.request('/dumps/latest/images.jsonl.gz')).status).toBe(404);
  });
});
