/**
 * Usage term 7, all URLs are https: the public bases must be https URLs (http only for
 * development hosts, with a warning at start — see shutdown.test.ts for the warning line), and
 * every URL the API writes is built on them.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, isDevelopmentHost, loadConfig } from '../../src/config.js';
import * as s from '../../src/db/schema/index.js';
import { insertImage, insertTag, insertUser } from '../http/harness.js';
import { startOps, type OpsHarness } from './support.js';
import { programArgs } from '../support/programs.js';

describe('BASE_URL and CDN_URL', () => {
  it.each([
    ['BASE_URL', 'http://booru.example'],
    ['CDN_URL', 'http://cdn.booru.example'],
    ['BASE_URL', 'http://203.0.113.5:8080'],
    ['CDN_URL', 'http://localhost.example.com'],
  ])('refuses %s=%s: a config error naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}: must be an https URL`));
  });

  it('names both when both are http', () => {
    expect(() => loadConfig({ BASE_URL: 'http://a.example', CDN_URL: 'http://b.example' })).toThrow(/BASE_URL: .*\n.*CDN_URL: /);
  });

  it('takes https URLs, and does not warn', () => {
    const c = loadConfig({ BASE_URL: 'https://booru.example/', CDN_URL: 'https://cdn.booru.example' });
    expect(c).toMatchObject({ baseUrl: 'https://booru.example', cdnUrl: 'https://cdn.booru.example', developmentHttpUrls: false });
  });

  it.each(['http://localhost:8080', 'http://127.0.0.1:3000', 'http://[::1]:8080', 'http://booru.localhost', 'http://booru.test'])(
    'allows %s for development, marked for the start-up warning',
    (url) => {
      const c = loadConfig({ BASE_URL: url, CDN_URL: url });
      expect(c.developmentHttpUrls).toBe(true);
      expect(c.baseUrl).toBe(url);
    },
  );

  it('defaults to http://localhost (development), and an https CDN with it still warns for the base', () => {
    expect(loadConfig({}).developmentHttpUrls).toBe(true);
    expect(loadConfig({ CDN_URL: 'https://cdn.example' }).developmentHttpUrls).toBe(true);
  });

  it('knows the development hosts', () => {
    for (const h of ['localhost', 'LOCALHOST', 'a.localhost', 'x.test', '127.0.0.1', '127.1.2.3', '[::1]']) expect(isDevelopmentHost(h), h).toBe(true);
    for (const h of ['example.com', 'localhost.example.com', 'test', '128.0.0.1', '10.0.0.1', '[::2]', 'testing.org']) expect(isDevelopmentHost(h), h).toBe(false);
  });

  it('makes the service exit 1 naming the variable', () => {
    const r = spawnSync(process.execPath, programArgs('src/main.ts'), {
      env: { ...process.env, BASE_URL: 'http://booru.example', CDN_URL: '', DATABASE_URL: '' },
      encoding: 'utf8',
      timeout: 90_000, // a cold tsx start on a busy machine
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/invalid configuration/);
    expect(r.stderr).toMatch(/BASE_URL: must be an https URL/);
  }, 120_000);
});

describe('URLs in API answers', () => {
  let h: OpsHarness;
  beforeAll(async () => {
    h = await startOps({ env: { RATE_LIMITS: 'off' } });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** Every string that looks like an absolute URL or a protocol-relative one, by JSON path. */
  function urls(value: unknown, path = '$', out: [string, string][] = []): [string, string][] {
    if (typeof value === 'string' && /^([a-z][a-z0-9+.-]*:|\/\/)/i.test(value)) out.push([path, value]);
    else if (Array.isArray(value)) value.forEach((v, i) => urls(v, `${path}[${i}]`, out));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) urls(v, `${path}.${k}`, out);
    return out;
  }

  it('are all https, built on BASE_URL and CDN_URL (source URLs are data of the uploader)', async () => {
    const artist = await insertUser(h.db, { name: 'Painter', avatar: 'painter.png' });
    const tag = await insertTag(h.db, 'safe', { category: 'rating', image: 'safe.png' });
    const image = await insertImage(h.db, { values: { userId: artist.id }, tags: [tag], sources: ['http://old.example/art'] });
    await h.db.insert(s.comments).values({ imageId: image.id, userId: artist.id, body: 'hi', approved: true });
    const answers = await Promise.all(
      [
        `/api/v1/json/images/${image.id}`,
        `/api/v1/json/tags/${tag.slug}`,
        `/api/v1/json/profiles/${artist.id}`,
        `/api/v1/json/oembed?url=${encodeURIComponent(`https://booru.test/images/${image.id}`)}`,
        '/api/v1/json/images/featured',
      ].map((p) => h.json(p)),
    );
    const found = answers.flatMap((a) => urls(a.body)).filter(([path]) => !/\.(source_urls?|author_url)\b/.test(path));
    expect(found.length).toBeGreaterThan(5);
    for (const [path, url] of found) {
      expect(url.startsWith('https://booru.test') || url.startsWith('https://cdn.booru.test/'), `${path}: ${url}`).toBe(true);
    }
  });
});
