/**
 * The firehose over a real socket: the `phoenix` package's own client (with `ws` as its
 * transport) joins `firehose` and receives what the reference broadcasts after a real upload,
 * its processing by the job worker, and tag changes made with the admin CLI (a child process);
 * other topics are refused and any other message closes the connection. Version 1.0.0 framing is
 * spoken by a plain `ws` client.
 */
import { eq } from 'drizzle-orm';
import { Socket, type Channel } from 'phoenix';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { mergeDuplicate } from '../../src/contexts/images/duplicates.js';
import { retagImages } from '../../src/contexts/images/retag.js';
import * as s from '../../src/db/schema/index.js';
import { assertResource } from '../support/resources.js';
import { HIDDEN_IMAGE, IMAGE } from '../support/spec-shapes.js';
import { runTool } from '../support/run-tool.js';
import { waitUntil } from '../support/wait.js';
import { startUploadHarness, type UploadHarness } from '../upload/harness.js';


let h: UploadHarness;
let key: string;
let socket: Socket;
let firehose: Channel;
/** Every firehose event received, in order. */
const received: { event: string; payload: any }[] = [];

const EVENTS = ['image:create', 'image:update', 'image:process', 'image:tag_update', 'image:batch_tag_update', 'image:description_update', 'image:source_update', 'image:merge'];

/** The first received event (from `from` on) that satisfies `test`, waiting up to 20 s. */
function nextEvent(test: (e: { event: string; payload: any }) => boolean, from = 0): Promise<{ event: string; payload: any }> {
  return waitUntil(() => `an event; got ${JSON.stringify(received.map((e) => e.event))}`, () => received.slice(from).find(test), 20_000, 20);
}

async function admin(...args: string[]): Promise<string> {
  const run = await runTool('src/cli/admin.ts', args, { DATABASE_URL: h.dbUrl, DATA_DIR: h.dataDir, LOG_LEVEL: 'silent' });
  if (run.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${run.code}\n${run.stderr}`);
  return run.stdout;
}

function joined(channel: Channel): Promise<{ status: string; response: any }> {
  return new Promise((done) => {
    channel
      .join()
      .receive('ok', (response) => done({ status: 'ok', response }))
      .receive('error', (response) => done({ status: 'error', response }));
  });
}

let uploads = 0;
async function upload(name: string, tags: string): Promise<number> {
  const png = await sharp({ create: { width: 40 + ++uploads, height: 30, channels: 3, background: '#336699' } }).png().toBuffer();
  const res = await h.submit(key, { url: h.serve(`/${name}.png`, { body: png }), image: { tag_input: tags } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.image.id;
}

beforeAll(async () => {
  h = await startUploadHarness();
  ({ key } = h.uploader);
  socket = new Socket(`${h.url.replace('http:', 'ws:')}/socket`, { transport: WebSocket as never, reconnectAfterMs: () => 60_000 });
  socket.connect();
  firehose = socket.channel('firehose');
  for (const event of EVENTS) {
    firehose.on(event, (payload) => {
      received.push({ event, payload });
    });
  }
  expect((await joined(firehose)).status).toBe('ok');
});

afterAll(async () => {
  socket?.disconnect();
  await h?.close();
});

describe('firehose', () => {
  let imageId: number;

  it('sends image:create with the show response after an upload', async () => {
    imageId = await upload('first', 'safe, cat, pony');
    const { payload } = await nextEvent((e) => e.event === 'image:create' && e.payload.image.id === imageId);
    expect(Object.keys(payload)).toEqual(['image', 'interactions']);
    expect(payload.interactions).toEqual([]);
    assertResource(payload.image, IMAGE);
    const shown = await h.api(`/images/${imageId}`);
    expect(payload).toEqual(shown.body);
  });

  it('sends image:process once the thumbnails are made', async () => {
    await h.drain();
    const { payload } = await nextEvent((e) => e.event === 'image:process' && e.payload.image_id === imageId);
    expect(payload).toEqual({ image_id: imageId });
  });

  it('sends image:tag_update and image:update after a tag change with the admin CLI', async () => {
    const from = received.length;
    await admin('tags', String(imageId), '--add', 'dog, solo', '--remove', 'cat');
    const update = await nextEvent((e) => e.event === 'image:tag_update', from);
    expect(update.payload).toEqual({ image_id: imageId, added: ['dog', 'solo'], removed: ['cat'] });
    const shown = await nextEvent((e) => e.event === 'image:update', from);
    expect(shown.payload.image.id).toBe(imageId);
    expect(shown.payload.image.tags).toEqual(expect.arrayContaining(['dog', 'safe', 'solo']));
    expect(shown.payload.image.tags).not.toContain('cat');
    expect(received.indexOf(update)).toBeLessThan(received.indexOf(shown));
  });

  it('sends one image:batch_tag_update for a change to several images at once', async () => {
    const second = await upload('second', 'safe, solo, pony');
    await nextEvent((e) => e.event === 'image:create' && e.payload.image.id === second);
    const from = received.length;
    await admin('tags', `${imageId},${second}`, '--add', 'batch');
    const batch = await nextEvent((e) => e.event === 'image:batch_tag_update', from);
    expect(batch.payload).toEqual({ image_ids: expect.arrayContaining([imageId, second]), added: ['batch'], removed: [] });
    expect(batch.payload.image_ids).toHaveLength(2);
    expect(received.slice(from).filter((e) => e.event === 'image:tag_update')).toEqual([]);
  });

  let kept: number;

  it("tells nothing of a deleted image's edits", async () => {
    const doomed = await upload('doomed', 'safe, solo, pony');
    kept = await upload('kept', 'safe, solo, pony');
    await nextEvent((e) => e.event === 'image:create' && e.payload.image.id === kept);
    await h.db.update(s.images).set({ hiddenFromUsers: true, deletionReason: 'Rule #3' }).where(eq(s.images.id, doomed));
    const from = received.length;
    // one change to both: the batch names the visible one only
    await retagImages(h.db, [doomed, kept], { add: 'secret one' });
    const batch = await nextEvent((e) => e.event === 'image:batch_tag_update', from);
    expect(batch.payload).toEqual({ image_ids: [kept], added: ['secret one'], removed: [] });
    // an edit of the deleted image alone, then one of the visible image, heard after it
    await retagImages(h.db, [doomed], { add: 'secret two', remove: 'solo' });
    await retagImages(h.db, [kept], { add: 'marker' });
    await nextEvent((e) => e.event === 'image:update' && e.payload.image.id === kept && e.payload.image.tags.includes('marker'), from);
    const told = received.slice(from);
    expect(told.filter((e) => JSON.stringify(e.payload).includes('secret two'))).toEqual([]);
    expect(told.filter((e) => e.payload.image_id === doomed || e.payload.image?.id === doomed)).toEqual([]);
  });

  it("sends image:merge with the merged image's stub and its target", async () => {
    const target = await upload('target', 'safe, solo, cat');
    await nextEvent((e) => e.event === 'image:create' && e.payload.image.id === target);
    const beforeMerge = received.length;
    await mergeDuplicate(h.db, kept, target);
    const merge = await nextEvent((e) => e.event === 'image:merge', beforeMerge);
    expect(merge.payload.image).toStrictEqual({
      id: kept,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      first_seen_at: expect.any(String),
      deletion_reason: null,
      duplicate_of: target,
      hidden_from_users: true,
    });
    assertResource(merge.payload.image, HIDDEN_IMAGE);
    expect(merge.payload.duplicate_of_image.id).toBe(target);
    assertResource(merge.payload.duplicate_of_image, IMAGE);
  });

  it('refuses other topics', async () => {
    const other = socket.channel('images');
    expect(await joined(other)).toEqual({ status: 'error', response: { reason: 'not_found' } });
  });

  it('closes the connection on any other message', async () => {
    const closed = new Promise<void>((done) => socket.onClose(() => done()));
    firehose.push('hello', { body: 'hi' });
    await closed;
  });
});

describe('firehose with the 1.0.0 serializer', () => {
  it('answers heartbeats and joins in objects and broadcasts the same events', async () => {
    const ws = new WebSocket(`${h.url.replace('http:', 'ws:')}/socket/websocket?vsn=1.0.0`);
    const frames: any[] = [];
    ws.on('message', (data) => frames.push(JSON.parse(String(data))));
    await new Promise((done) => ws.once('open', done));
    const waitFor = (test: (f: any) => boolean) => waitUntil(() => `a frame; got ${JSON.stringify(frames)}`, () => frames.find(test), 20_000, 20);
    ws.send(JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: '1' }));
    expect(await waitFor((f) => f.ref === '1')).toEqual({ topic: 'phoenix', event: 'phx_reply', payload: { status: 'ok', response: {} }, ref: '1' });
    ws.send(JSON.stringify({ topic: 'firehose', event: 'phx_join', payload: {}, ref: '2' }));
    expect(await waitFor((f) => f.ref === '2')).toEqual({ topic: 'firehose', event: 'phx_reply', payload: { status: 'ok', response: {} }, ref: '2' });
    const id = await upload('third', 'safe, solo, pony');
    const created = await waitFor((f) => f.event === 'image:create');
    expect(created).toEqual({ topic: 'firehose', event: 'image:create', payload: { image: expect.objectContaining({ id }), interactions: [] }, ref: null });
    ws.close();
  });

  it('refuses an unknown serializer version and plain HTTP', async () => {
    const refused = new WebSocket(`${h.url.replace('http:', 'ws:')}/socket/websocket?vsn=3.0.0`);
    refused.on('error', () => {});
    const status = await new Promise<number | undefined>((done) => refused.once('unexpected-response', (_req, res) => done(res.statusCode)));
    expect(status).toBe(400);
    expect((await fetch(`${h.url}/socket/websocket`)).status).toBe(400);
  });
});
