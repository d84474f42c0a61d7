/**
 * The search workbench page in a real browser: Debian's `chromium` driven by `puppeteer-core`
 * (which downloads no browser), against the app serving a demo board with real image files and
 * the embedded engine. Typing shows suggestions and results, a broken query is underlined at the
 * parser's place, and filter mode shows the test bench's counts (checked against the search
 * engine) and why an image is hidden or spoilered. With `SAVE_SCREENSHOTS=1` the screenshots in
 * docs/screenshots/ are written again.
 *
 * Skipped, saying so, only when chromium is not installed; CI (`.ci/run`) installs it.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../indexer/index.js';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app/app.js';
import { composeApp } from '../../src/http/app/compose.js';
import { freePort } from '../../src/lib/free-port.js';
import { EngineThread } from '../../src/search/embedded/public.js';
import { seedDemoBoard } from '../../src/seed/demo.js';
import { insertFilter, insertKey, insertUser } from '../http/harness.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { DirectoryStorage } from '../../src/media/storage-directory.js';

/** The page's globals, inside `page.evaluate` callbacks (the project's types carry no DOM library). */
declare const document: any;
declare const window: any;
declare const sessionStorage: any;

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`search page browser tests skipped: no chromium at ${CHROMIUM} (apt-get install chromium)`);
const SCREENSHOTS = process.env.SAVE_SCREENSHOTS === '1' ? join(import.meta.dirname, '../../docs/screenshots') : null;

let testDb: TestDatabase;
let dataDir: string;
let engine: EngineThread;
let indexer: Indexer;
let server: ServerType;
let origin: string;
let browser: Browser;
let page: Page;
/** A filter that hides nothing, for the engine's own counts. */
let everything: number;

beforeAll(async () => {
  if (!haveChromium) return;
  testDb = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'tagwise-search-page-'));
  await seedDemoBoard(testDb.db, { seed: 3, images: 30, storage: new DirectoryStorage(dataDir), withFiles: true });
  engine = new EngineThread();
  indexer = new Indexer({ db: testDb.db, engine });
  await indexer.ensureIndexes();
  await indexer.reindex();
  everything = (await insertFilter(testDb.db, { name: 'Nothing hidden', public: true })).id;
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const config = loadConfig({ BASE_URL: origin, DATA_DIR: dataDir, SITE_NAME: 'Tagwise', ANONYMOUS_NAME_SALT: 'salt', DEMO_DATA: 'false', RATE_LIMITS: 'off' });
  const app = createApp(composeApp({ config, db: testDb.db, engine, logger: { error: (obj, msg) => console.error(msg, obj) } }));
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => resolve(s));
  });
  browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 900 });
  page.on('pageerror', (err) => console.error('page error', err));
}, 240_000);

afterAll(async () => {
  if (!haveChromium) return;
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await indexer?.stop();
  await engine?.close();
  await testDb?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function shoot(name: string) {
  if (SCREENSHOTS === null) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) as `${string}.png`, fullPage: false });
}

const api = async (path: string) => (await (await fetch(`${origin}/api/v1/json${path}`)).json()) as any;

/** Select the whole of a field's text, as a user's triple click does (which a busy machine can take for a double one). */
async function selectAll(selector: string) {
  await page.click(selector);
  await page.$eval(selector, (e) => (e as unknown as { select(): void }).select());
}

async function typeQuery(text: string) {
  await selectAll('#q');
  await page.keyboard.press('Backspace');
  await page.type('#q', text, { delay: 15 });
}

describe.skipIf(!haveChromium)('the search page', () => {
  it('suggests tags while typing, takes a picked one with Enter, and shows the hits', async () => {
    await page.goto(`${origin}/search`, { waitUntil: 'networkidle0' });
    await typeQuery('saf');
    await page.waitForSelector('#suggestions li', { visible: true });
    const first = await page.$eval('#suggestions li', (li) => li.textContent ?? '');
    expect(first).toMatch(/^safe \(\d+\)/);
    await page.keyboard.press('ArrowDown');
    await page.waitForSelector('#suggestions li[aria-selected=true]', { visible: true });
    await page.keyboard.press('Enter');
    expect(await page.$eval('#q', (i) => (i as unknown as { value: string }).value)).toBe('safe');
    const total = (await api('/search/images?q=safe&per_page=1')).total as number;
    expect(total).toBeGreaterThan(0);
    const expected = `${total.toLocaleString('en-US')} image${total === 1 ? '' : 's'}`;
    await page.waitForFunction((text) => document.getElementById('count')?.textContent === text, {}, expected);
    expect(await page.$$eval('#results .thumb img', (imgs) => imgs.length)).toBe(Math.min(total, 24));
    await page.waitForFunction(() => [...document.querySelectorAll('#results img')].every((img: { complete: boolean; naturalWidth: number }) => img.complete && img.naturalWidth > 0));
    // The DSL is there, folded.
    expect(await page.$eval('#dsl-text', (pre) => pre.textContent)).toContain('"term"');
    await typeQuery('safe, -');
    await page.type('#q', 'so', { delay: 15 });
    await page.waitForSelector('#suggestions li', { visible: true });
    await shoot('query-mode');
    await page.keyboard.press('Escape');
  }, 60_000);

  it('underlines a broken query where the parser says', async () => {
    const q = 'safe, (solo || cute';
    await typeQuery(q);
    await page.waitForSelector('#q-mirror mark.err');
    const at = await page.evaluate(() => {
      const mirror = document.getElementById('q-mirror')!;
      const mark = mirror.querySelector('mark')!;
      return (mirror.textContent ?? '').indexOf(mark.textContent ?? '\u0000', 0) >= 0 ? (mark.previousSibling?.textContent ?? '').length : -1;
    });
    const { position, error } = (await (await fetch(`${origin}/api/v1/json/search/explain?index=images&q=${encodeURIComponent(q)}`)).json()) as { position: { offset: number; column: number }; error: string };
    expect(at).toBe(position.offset);
    expect(await page.$eval('#q-error', (p) => p.textContent)).toBe(`${error} (line 1, column ${position.column})`);
    expect(await page.$eval('#q', (i) => i.getAttribute('aria-invalid'))).toBe('true');
    await shoot('query-error');
  }, 30_000);

  it('filter mode: the bench counts agree with the engine, and a thumbnail says why', async () => {
    await typeQuery('safe');
    await page.waitForFunction(() => document.getElementById('q')?.getAttribute('aria-invalid') === null);
    await page.click('[data-tab=filter]');
    await page.type('[name=hidden_tags]', 'solo');
    await page.type('[name=spoilered_complex]', 'score.gte:1');
    await page.click('#filter-form button[type=submit]');
    await page.waitForFunction(() => document.querySelector('#bench .part ul.clauses') !== null && document.getElementById('bench-hidden') !== null);
    const hidden = Number(await page.$eval('#bench-hidden', (s) => s.textContent));
    const spoilered = Number(await page.$eval('#bench-spoilered', (s) => s.textContent));
    // The engine's own answers over the same sample (every image of this small board).
    const count = async (q: string) => (await api(`/search/images?q=${encodeURIComponent(q)}&per_page=1&filter_id=${everything}`)).total as number;
    expect((await api('/filters/test?hidden_tags=&sample=1000')).sample.size).toBe(await count('*'));
    expect(hidden).toBe(await count('solo'));
    expect(spoilered).toBe(await count('-solo, score.gte:1'));
    // clicked in the page: the grid under a filter being written may be drawn again meanwhile
    await page.waitForSelector('#results .thumb');
    await page.evaluate(() => (document.querySelector('#results .thumb') as unknown as { click(): void }).click());
    await page.waitForSelector('#why-verdict');
    expect(['hidden', 'spoilered', 'shown']).toContain(await page.$eval('#why-verdict', (s) => s.textContent));
    await shoot('filter-mode');
  }, 60_000);

  it('with a key, thumbnails follow the key user\'s filter: its spoilers are blurred', async () => {
    const solo = (await api('/search/tags?q=name:solo')).tags[0];
    const filter = await insertFilter(testDb.db, { name: 'spoil solo', public: true, spoileredTagIds: [solo.id] });
    const user = await insertUser(testDb.db, { currentFilterId: filter.id });
    const key = await insertKey(testDb.db, user.id);
    await page.click('[data-tab=query]');
    await page.type('#key', key);
    await page.keyboard.press('Tab');
    await typeQuery('safe');
    // The page may still be showing an earlier answer (typing searches as it goes): wait for the
    // answer of the whole query, whose spoilered thumbnails are the key filter's.
    const spoilered = (await api(`/search/images?q=safe,solo&per_page=50&key=${key}`)).images.length;
    expect(spoilered).toBeGreaterThan(1);
    const shown = (n: number) => page.waitForFunction((n) => document.querySelectorAll('#results .thumb.spoilered').length === n, { timeout: 10_000 }, n);
    await shown(spoilered);
    await page.waitForNetworkIdle({ idleTime: 200, timeout: 10_000 });
    await shoot('query-with-key');
    // Clicking reveals one.
    await page.click('#results .thumb.spoilered');
    await shown(spoilered - 1);
    await selectAll('#key');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Tab');
  }, 30_000);

  it('is readable at phone width', async () => {
    await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
    await page.click('[data-tab=query]');
    await typeQuery('safe');
    await page.waitForFunction(() => /\d+ images?/.test(document.getElementById('count')?.textContent ?? ''));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shoot('phone');
  }, 30_000);
});

const inputValue = (selector: string) => page.$eval(selector, (i) => (i as unknown as { value: string }).value);
const text = (selector: string) => page.$eval(selector, (e) => e.textContent ?? '');
/** The engine's count of `q` under a filter that hides nothing (the oracle of the page's counts). */
const engineCount = async (q: string) => (await api(`/search/images?q=${encodeURIComponent(q)}&per_page=1&filter_id=${everything}`)).total as number;
const countText = (total: number) => `${total.toLocaleString('en-US')} image${total === 1 ? '' : 's'}`;

async function fresh(width: number) {
  await page.setViewport(width < 500 ? { width, height: 844, isMobile: true, hasTouch: true } : { width, height: 900 });
  await page.goto(`${origin}/search`, { waitUntil: 'networkidle0' });
}

async function fillFilter(fields: Record<string, string>) {
  for (const [name, value] of Object.entries(fields)) {
    await page.$eval(`[name=${name}]`, (area, v) => {
      (area as unknown as { value: string }).value = v as string;
    }, value);
  }
  await page.click('#filter-form button[type=submit]');
}

const noOverflow = async () => expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);

describe.skipIf(!haveChromium).each([
  ['desktop', 1200],
  ['phone', 390],
])('the workbench (%s)', (label, width) => {
  it('1: Enter and Tab keep what was typed; Escape closes the list until the next keystroke', async () => {
    await fresh(width);
    await typeQuery('saf');
    await page.waitForSelector('#suggestions li', { visible: true });
    await page.keyboard.press('Enter');
    expect(await inputValue('#q')).toBe('saf');
    await typeQuery('saf');
    await page.waitForSelector('#suggestions li', { visible: true });
    await page.keyboard.press('Tab');
    expect(await inputValue('#q')).toBe('saf');
    await typeQuery('saf');
    await page.waitForSelector('#suggestions li', { visible: true });
    await page.keyboard.press('Escape');
    await new Promise((r) => setTimeout(r, 400));
    expect(await page.$eval('#suggestions', (ul) => (ul as unknown as { hidden: boolean }).hidden)).toBe(true);
    await page.type('#q', 'e', { delay: 15 });
    await page.waitForSelector('#suggestions li', { visible: true });
    await noOverflow();
  }, 60_000);

  it('2 and 3: a broken filter line is placed as the same text searched; nothing stale stays beside an error', async () => {
    await fresh(width);
    await typeQuery('safe');
    await page.waitForFunction(() => /\d+ images?/.test(document.getElementById('count')?.textContent ?? ''));
    await typeQuery('safe, (solo || cute');
    await page.waitForSelector('#q[aria-invalid=true]');
    expect(await text('#count')).toBe('');
    expect(await page.$$eval('#results .thumb', (t) => t.length)).toBe(0);
    await page.click('[data-tab=filter]');
    await typeQuery('safe');
    await fillFilter({ hidden_complex: 'solo' });
    await page.waitForFunction(() => document.querySelector('#bench .part') !== null);
    await page.waitForSelector('#results .thumb');
    // found and clicked in one step: the grid may be drawn again (the bench's search answering)
    // between a lookup and a click of puppeteer's own
    await page.$eval('#results .thumb', (thumb) => (thumb as unknown as { click(): void }).click());
    await page.waitForSelector('#why-verdict');
    for (const line of ['!', 'safe, (solo || cute', 'score.gte:x']) {
      const searched = await api(`/search/explain?index=images&q=${encodeURIComponent(line)}`);
      await fillFilter({ hidden_complex: `solo\n${line}` });
      const expected = `hidden_complex: ${searched.error} (line 2, column ${searched.position.column})`;
      await page.waitForFunction((t) => (document.getElementById('filter-error')?.textContent ?? '').startsWith(t), { timeout: 10_000 }, expected);
      expect(await page.$eval('#bench', (b) => b.childElementCount)).toBe(0);
      expect(await page.$eval('#why', (b) => b.childElementCount)).toBe(0);
      expect(await page.$$eval('#results .thumb', (t) => t.length)).toBe(0);
      const box = await page.$eval('#filter-error', (e) => e.getBoundingClientRect().bottom);
      expect(box).toBeLessThanOrEqual(await page.evaluate(() => window.innerHeight));
    }
    expect(await text('#filter-error')).toContain('score.gte:x');
    await noOverflow();
    await shoot(`filter-error-${label}`);
  }, 90_000);

  it('4: the grid shows the filter under edit; an empty form hides nothing', async () => {
    await fresh(width);
    await page.click('[data-tab=filter]');
    await typeQuery('safe');
    await fillFilter({ hidden_tags: '', spoilered_tags: '', hidden_complex: '', spoilered_complex: '' });
    await page.waitForFunction((t) => document.getElementById('count')?.textContent === t, { timeout: 10_000 }, countText(await engineCount('safe')));
    expect(await page.$$eval('#results .thumb.spoilered', (t) => t.length)).toBe(0);
    await fillFilter({ hidden_complex: 'solo\nscore.gte:5', spoilered_complex: 'cute' });
    await page.waitForFunction((t) => document.getElementById('count')?.textContent === t, { timeout: 10_000 }, countText(await engineCount('safe, -solo, -score.gte:5')));
    const spoilered = Math.min(24, await engineCount('safe, -solo, -score.gte:5, cute'));
    await page.waitForFunction((n) => document.querySelectorAll('#results .thumb.spoilered').length === n, { timeout: 10_000 }, spoilered);
    await noOverflow();
  }, 60_000);

  it('4: with a key, the author saves a filter of their own (private), and loads it back into the form', async () => {
    const user = await insertUser(testDb.db, {});
    const key = await insertKey(testDb.db, user.id);
    await fresh(width);
    await page.evaluate((k) => sessionStorage.setItem('tagwise-search-key', k), key);
    await page.goto(`${origin}/search`, { waitUntil: 'networkidle0' });
    await page.click('[data-tab=filter]');
    await page.waitForSelector('#saved-filters', { visible: true });
    await fillFilter({ hidden_tags: 'solo', spoilered_tags: '', hidden_complex: 'cute\nscore.gte:5', spoilered_complex: '' });
    await page.type('#filter-name', `mine ${label}`);
    await page.click('#save-filter');
    await page.waitForFunction(() => (document.getElementById('save-status')?.textContent ?? '') !== '');
    expect(await text('#save-status')).toMatch(/^Saved/);
    const listed = (await api(`/filters/user?key=${key}`)).filters as { id: number; name: string; public: boolean; hidden_tag_ids: number[]; hidden_complex: string }[];
    const solo = (await api('/search/tags?q=name:solo')).tags[0].id as number;
    expect(listed).toEqual([expect.objectContaining({ name: `mine ${label}`, public: false, hidden_tag_ids: [solo], hidden_complex: 'cute\nscore.gte:5' })]);
    expect((await fetch(`${origin}/api/v1/json/filters/${listed[0]!.id}`)).status).toBe(404);
    // Cleared, then loaded back.
    await page.select('#my-filters', '');
    await fillFilter({ hidden_tags: '', spoilered_tags: '', hidden_complex: '', spoilered_complex: '' });
    await page.select('#my-filters', String(listed[0]!.id));
    await page.waitForFunction(() => (document.querySelector('[name=hidden_complex]') as { value: string }).value !== '');
    expect(await inputValue('[name=hidden_tags]')).toBe('solo');
    expect(await inputValue('[name=hidden_complex]')).toBe('cute\nscore.gte:5');
    await page.waitForFunction((t) => document.getElementById('count')?.textContent === t, { timeout: 10_000 }, countText(await engineCount('-solo, -cute, -score.gte:5')));
    await noOverflow();
    await shoot(`saved-filter-${label}`);
    await page.evaluate(() => sessionStorage.removeItem('tagwise-search-key'));
  }, 60_000);

  it('5: pages and sort as the API, and an image opened by click or by id shows its tags and both explanations', async () => {
    await fresh(width);
    await typeQuery('*');
    await page.waitForFunction(() => /\d+ images?/.test(document.getElementById('count')?.textContent ?? ''));
    await page.select('#per-page', '12');
    await page.select('#sf', 'score');
    await page.select('#sd', 'asc');
    const key = `/search/images?q=*&sf=score&sd=asc&per_page=12`;
    const ids = async () => page.$$eval('#results .thumb', (t) => t.map((b) => Number(b.getAttribute('data-id'))));
    const want1 = (await api(`${key}&page=1`)).images.map((i: { id: number }) => i.id);
    await page.waitForFunction((first) => Number(document.querySelector('#results .thumb')?.getAttribute('data-id')) === first && document.getElementById('sd')?.value === 'asc', {}, want1[0]);
    expect(await ids()).toEqual(want1);
    await page.click('#next');
    const want2 = (await api(`${key}&page=2`)).images.map((i: { id: number }) => i.id);
    await page.waitForFunction((first) => Number(document.querySelector('#results .thumb')?.getAttribute('data-id')) === first, {}, want2[0]);
    expect(await ids()).toEqual(want2);
    expect(await text('#page-of')).toMatch(/^page 2 of \d+$/);
    await typeQuery('safe');
    await page.waitForFunction(() => /\d+ images?/.test(document.getElementById('count')?.textContent ?? ''));
    const id = want1[0] as number;
    await selectAll('#image-id');
    await page.type('#image-id', String(id));
    await page.keyboard.press('Enter');
    await page.waitForSelector('#image-tags');
    const image = (await api(`/images/${id}`)).image;
    expect(await text('#image-tags')).toBe(image.tags.join(', '));
    const matched = (await api(`/search/explain?index=images&q=safe&image_id=${id}`)).image.matched;
    expect(await text('#query-verdict')).toBe(matched ? 'matches' : 'does not match');
    await page.click('[data-tab=filter]');
    await fillFilter({ hidden_tags: 'safe' });
    await selectAll('#image-id');
    await page.type('#image-id', String(id));
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('why-verdict') !== null);
    expect(await text('#why-verdict')).toBe(image.tags.includes('safe') ? 'hidden' : 'shown');
    await noOverflow();
    await shoot(`image-open-${label}`);
  }, 60_000);

  it('6: multi-line filters show `||` between lines; the form keeps its size; nothing overflows', async () => {
    await fresh(width);
    await page.click('[data-tab=filter]');
    await typeQuery('safe');
    await fillFilter({ hidden_tags: '', spoilered_tags: '', hidden_complex: 'solo\ncute', spoilered_complex: '' });
    await page.waitForFunction(() => document.querySelector('#bench ul.clauses code') !== null);
    expect(await text('#bench ul.clauses code')).toBe('solo || cute');
    const heights = await page.$$eval('#filter-form input, #filter-form textarea', (els) => els.map((e) => e.getBoundingClientRect().height));
    for (const h of heights) expect(h).toBeLessThan(110);
    const inputs = await page.$$eval('#filter-form input', (els) => els.map((e) => e.getBoundingClientRect().height));
    for (const h of inputs) expect(h).toBeLessThan(50);
    await noOverflow();
    await shoot(`filter-mode-${label}`);
  }, 60_000);

  it('7: an unknown tag or field says "did you mean", and a click puts the suggestion in', async () => {
    await fresh(width);
    await typeQuery('saef');
    await page.waitForFunction(() => (document.getElementById('hint')?.textContent ?? '').startsWith('No tag “saef” — did you mean'));
    expect(await page.$$eval('#hint .dym button', (b) => b.map((x) => x.textContent))).toContain('safe');
    await typeQuery('safe, scroe.gte:1');
    await page.waitForFunction(() => (document.getElementById('hint')?.textContent ?? '').includes('No field “scroe”'));
    await shoot(`did-you-mean-${label}`);
    await page.evaluate(() => {
      const button = [...document.querySelectorAll('#hint .dym button')].find((b: { textContent: string }) => b.textContent === 'score');
      button.click();
    });
    await page.waitForFunction(() => (document.getElementById('q') as { value: string }).value === 'safe, score.gte:1');
    await page.waitForFunction((t) => document.getElementById('count')?.textContent === t, { timeout: 10_000 }, countText((await api('/search/images?q=safe,score.gte:1&per_page=1')).total));
    await noOverflow();
  }, 60_000);
});
