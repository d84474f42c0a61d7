/**
 * Live searches over real HTTP: SSE subscribers with different filters see exactly the images
 * they may see, as images are created, tagged into and out of the query, hidden and unhidden;
 * a subscriber that resumes with `Last-Event-ID` after the server restarted (a new app and live
 * service over the same database) loses nothing that happened while it was gone. The stream is
 * read by a small reader written here from the SSE format, sharing nothing with the server.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { changeGroupsAfter } from '../../src/contexts/changes/log.js';
import { retagImages } from '../../src/contexts/images/retag.js';
import * as s from '../../src/db/schema/index.js';
import { createApp } from '../../src/http/app/app.js';
import { composeApp } from '../../src/http/app/compose.js';
import { LiveService } from '../../src/http/live/service.js';
import { insertFilter, insertImage, insertTag, serveApp, stubEngine, testConfig } from '../http/harness.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { waitUntil } from '../support/wait.js';

interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/** An SSE reader: `fetch` with a streamed body, split into events by blank lines. */
class SseReader {
  readonly events: SseEvent[] = [];
  lastId: string | undefined;
  status = 0;
  /** True once the server ended the stream. */
  ended = false;
  private readonly abort = new AbortController();
  readonly opened: Promise<void>;

  constructor(url: string, headers: Record<string, string> = {}) {
    this.opened = this.read(url, headers);
  }

  private async read(url: string, headers: Record<string, string>): Promise<void> {
    const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: this.abort.signal });
    this.status = res.status;
    if (res.status !== 200 || res.body === null) return;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) {
            this.ended = true;
            return;
          }
          buffer += decoder.decode(value, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            this.take(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        }
      } catch {
        /* aborted */
      }
    })();
  }

  private take(block: string): void {
    let event = 'message';
    const data: string[] = [];
    let id: string | undefined;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
    }
    if (id !== undefined) this.lastId = id;
    if (data.length > 0) this.events.push({ id, event, data: data.join('\n') });
  }

  /** `image:ID` and `gone:ID` of the events so far. */
  summary(): string[] {
    return this.events.map((e) => `${e.event}:${JSON.parse(e.data).id}`);
  }

  close(): void {
    this.abort.abort();
  }
}

/** Wait until `reader` has `count` events (or fail after 20 s). */
async function eventsOf(reader: SseReader, count: number): Promise<string[]> {
  await waitUntil(() => `${count} events, got ${JSON.stringify(reader.summary())}`, () => reader.events.length >= count, 20_000, 20);
  return reader.summary();
}

/**
 * Nothing more arrives than the events each reader has: events go out in commit order, so once an
 * image tagged cat made after them (which every reader here sees) has arrived, nothing before it
 * is still to come.
 */
async function quiet(...readers: SseReader[]): Promise<void> {
  const before = readers.map((r) => r.summary());
  const marker = `image:${(await insertImage(t.db, { tags: [tags.safe!, tags.cat!] })).id}`;
  for (const [i, reader] of readers.entries()) {
    await waitUntil(() => `${marker}, got ${JSON.stringify(reader.summary())}`, () => reader.summary().includes(marker), 20_000, 20);
    expect(reader.summary()).toEqual([...before[i]!, marker]);
  }
}

let t: TestDatabase;
let config: Config;
let server: { url: string; close(): Promise<void> };
let live: LiveService;
const tags: Record<string, { id: number }> = {};
let noDogs: number;

async function startServer(): Promise<void> {
  const deps = { config, db: t.db, engine: stubEngine, logger: { error: (obj: unknown) => console.error(obj) } };
  live = new LiveService(deps);
  server = await serveApp(createApp(composeApp({ ...deps, live })));
}

async function stopServer(): Promise<void> {
  await live.stop();
  await server.close();
}

const stream = (q: string, extra = '') => `${server.url}/api/v1/json/search/images/live?q=${encodeURIComponent(q)}${extra}`;

beforeAll(async () => {
  t = await createTestDatabase();
  config = testConfig('/nonexistent-tagwise-data');
  for (const name of ['safe', 'cat', 'dog']) tags[name] = await insertTag(t.db, name, name === 'safe' ? { category: 'rating' } : {});
  await insertFilter(t.db, { name: 'Default', system: true });
  noDogs = (await insertFilter(t.db, { name: 'No dogs', system: true, hiddenTagIds: [tags.dog!.id] })).id;
  await startServer();
});

afterAll(async () => {
  await stopServer();
  await t.drop();
});

describe('live search', () => {
  it('refuses a missing or bad query and a malformed Last-Event-ID', async () => {
    expect((await fetch(`${server.url}/api/v1/json/search/images/live`)).status).toBe(400);
    const bad = await fetch(stream('cat AND ('));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'Expected a term.', position: { offset: 9 } });
    expect((await fetch(stream('cat'), { headers: { 'last-event-id': 'abc' } })).status).toBe(400);
  });

  let everyone: SseReader;
  let dogless: SseReader;
  const ids: Record<string, number> = {};

  it('each subscriber sees exactly what its filter lets it see', async () => {
    everyone = new SseReader(stream('cat'));
    dogless = new SseReader(stream('cat', `&filter_id=${noDogs}`));
    await Promise.all([everyone.opened, dogless.opened]);
    expect([everyone.status, dogless.status]).toEqual([200, 200]);

    ids.a = (await insertImage(t.db, { tags: [tags.safe!, tags.cat!] })).id;
    ids.b = (await insertImage(t.db, { tags: [tags.safe!, tags.cat!, tags.dog!] })).id;
    ids.c = (await insertImage(t.db, { tags: [tags.safe!] })).id;
    await eventsOf(everyone, 2);
    await eventsOf(dogless, 1);
    // a gains a dog: hidden by the second filter; c is tagged into the query.
    await retagImages(t.db, [ids.a!], { add: 'dog' });
    await retagImages(t.db, [ids.c!], { add: 'cat' });
    // c's image event is rendered from the image as it is when sent: one hidden by then is never
    // sent (its gone follows), so c is hidden only once its event is out.
    await eventsOf(everyone, 3);
    await eventsOf(dogless, 3);
    await t.db.update(s.images).set({ hiddenFromUsers: true }).where(sql`id = ${ids.c}`);
    await t.db.update(s.images).set({ hiddenFromUsers: false }).where(sql`id = ${ids.c}`);
    await retagImages(t.db, [ids.b!], { remove: 'cat' });

    expect(await eventsOf(everyone, 6)).toEqual([`image:${ids.a}`, `image:${ids.b}`, `image:${ids.c}`, `gone:${ids.c}`, `image:${ids.c}`, `gone:${ids.b}`]);
    expect(await eventsOf(dogless, 5)).toEqual([`image:${ids.a}`, `gone:${ids.a}`, `image:${ids.c}`, `gone:${ids.c}`, `image:${ids.c}`]);
    await quiet(everyone, dogless);
    const image = JSON.parse(everyone.events[0]!.data);
    expect(image).toMatchObject({ id: ids.a, tags: expect.arrayContaining(['cat', 'safe']) });
    expect(Number(everyone.events[5]!.id)).toBeGreaterThan(Number(everyone.events[0]!.id));
  });

  it('resumes with Last-Event-ID across a server restart without losing anything', async () => {
    const resumeEveryone = everyone.lastId!;
    const resumeDogless = dogless.lastId!;
    everyone.close();
    dogless.close();
    await stopServer();

    // While no server runs.
    ids.d = (await insertImage(t.db, { tags: [tags.cat!] })).id;
    ids.e = (await insertImage(t.db, { tags: [tags.cat!, tags.dog!] })).id;
    await retagImages(t.db, [ids.a!], { remove: 'cat' });

    await startServer();
    const again = new SseReader(stream('cat'), { 'last-event-id': resumeEveryone });
    const againDogless = new SseReader(stream('cat', `&filter_id=${noDogs}&last_event_id=${resumeDogless}`));
    await Promise.all([again.opened, againDogless.opened]);
    expect(await eventsOf(again, 3)).toEqual([`image:${ids.d}`, `image:${ids.e}`, `gone:${ids.a}`]);
    expect(await eventsOf(againDogless, 1)).toEqual([`image:${ids.d}`]);

    // And live from there on.
    ids.f = (await insertImage(t.db, { tags: [tags.cat!] })).id;
    expect(await eventsOf(again, 4)).toEqual([`image:${ids.d}`, `image:${ids.e}`, `gone:${ids.a}`, `image:${ids.f}`]);
    expect(await eventsOf(againDogless, 2)).toEqual([`image:${ids.d}`, `image:${ids.f}`]);
    await quiet(again, againDogless);
    again.close();
    againDogless.close();
  });

  it('a resume tells nothing of an image deleted since it matched: only that it is gone', async () => {
    const first = new SseReader(stream('cat'));
    await first.opened;
    await quiet(first);
    const resume = first.lastId!;
    first.close();
    ids.g = (await insertImage(t.db, { tags: [tags.safe!, tags.cat!], values: { description: 'SECRET TEXT' } })).id;
    await t.db.update(s.images).set({ hiddenFromUsers: true, deletionReason: 'Rule #3' }).where(sql`id = ${ids.g}`);
    const again = new SseReader(stream('cat'), { 'last-event-id': resume });
    await again.opened;
    expect(await eventsOf(again, 1)).toEqual([`gone:${ids.g}`]);
    await quiet(again);
    expect(again.events.filter((e) => e.data.includes('SECRET'))).toEqual([]);
    again.close();
  });

  it('a transaction the resume replayed is not sent again when the change follower delivers it after', async () => {
    const first = new SseReader(stream('cat'));
    await first.opened;
    await quiet(first);
    const resume = first.lastId!;
    first.close();
    ids.h = (await insertImage(t.db, { tags: [tags.safe!, tags.cat!] })).id;
    const again = new SseReader(stream('cat'), { 'last-event-id': resume });
    await again.opened;
    expect(await eventsOf(again, 1)).toEqual([`image:${ids.h}`]);
    // The follower may not have reached that transaction when the replay read it: hand it over
    // now, as a follower running late would.
    await live.searches.onChanges(await changeGroupsAfter(t.db, Number(resume), 100));
    await quiet(again);
    again.close();
  });

  it('a position older than the log keeps is 410 with the dump to restart from', async () => {
    await live.prune(new Date(Date.now() + 30 * 86_400_000));
    const res = await fetch(stream('cat'), { headers: { 'last-event-id': '1' } });
    expect(res.status).toBe(410);
    expect(await res.json()).toEqual({ error: expect.any(String), dump: null, head: expect.any(Number) });
  });
});

describe('live connections are bounded', () => {
  it('refuses a stream beyond LIVE_MAX_CONNECTIONS with 503, takes one again once a stream closes, and ends them all when the live side stops', async () => {
    const bounded = testConfig('/nonexistent-tagwise-data', { LIVE_MAX_CONNECTIONS: '2' });
    const deps = { config: bounded, db: t.db, engine: stubEngine, logger: { error: (obj: unknown) => console.error(obj) } };
    const boundedLive = new LiveService(deps);
    const app = await serveApp(createApp(composeApp({ ...deps, live: boundedLive })));
    const url = `${app.url}/api/v1/json/search/images/live?q=cat`;
    const open = [new SseReader(url), new SseReader(url)];
    try {
      await Promise.all(open.map((r) => r.opened));
      expect(open.map((r) => r.status)).toEqual([200, 200]);
      const refused = await fetch(url);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('30');
      expect(await refused.json()).toEqual({ error: 'Too many live connections are open; retry later' });
      open.shift()!.close();
      const again = await waitUntil(
        'the closed stream to free its place',
        async () => {
          const reader = new SseReader(url);
          await reader.opened;
          if (reader.status === 200) return reader;
          reader.close();
          return undefined;
        },
        10_000,
        100,
      );
      open.push(again);

      // Stopping the live side ends its streams (they resume with Last-Event-ID), so the server
      // has nothing left to wait for; and it takes no new one.
      await boundedLive.stop();
      await waitUntil('the streams to end', () => open.every((r) => r.ended), 10_000, 20);
      expect((await fetch(url)).status).toBe(503);
    } finally {
      for (const r of open) r.close();
      await boundedLive.stop();
      await app.close();
    }
  });
});
