/**
 * Public data dumps end to end on the demo board plus one record of every kind of private data:
 * what the files hold (and never hold), the manifest and checksums, the round trip through the
 * importer into an empty database (the API answers the same), and the HTTP routes.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import * as s from '../../src/db/schema/index.js';
import { readDump } from '../../src/dumps/read.js';
import { DUMP_RESOURCES, resourceFile, type Manifest } from '../../src/dumps/layout.js';
import { DirectoryStorage } from '../../src/media/storage-directory.js';
import { writeDump, type DumpResult } from '../../src/dumps/write.js';
import { createApp } from '../../src/http/app/app.js';
import { composeApp } from '../../src/http/app/compose.js';
import { importBoard } from '../../src/import/api-json/index.js';
import { seedDemoBoard } from '../../src/seed/demo.js';
import { generateApiKey } from '../../src/contexts/users/api-keys.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { insertImage, insertUser, stubEngine } from '../http/harness.js';

const NOW = new Date('2025-06-02T03:00:00Z');
const DAY = '2025-06-02';

let source: TestDatabase;
let target: TestDatabase;
let dataDir: string;
let config: Config;
let result: DumpResult;
/** The dump's directory. */
let dumpDir: string;
let manifest: Manifest;
/** Every line of every file, by file name. */
const lines: Record<string, string[]> = {};
const records: Record<string, Array<Record<string, any>>> = {};
let sourceApp: ReturnType<typeof createApp>;
let targetApp: ReturnType<typeof createApp>;

/** What must never appear in a dump. */
const secrets: string[] = [];
/** Ids that must not be in their resource's file. */
const privateIds = { users: [] as number[], images: [] as number[], comments: [] as number[], posts: [] as number[], filters: [] as number[], galleries: [] as number[] };
let deactivatedId: number;
let anonymousImageId: number;
let hiddenImageId: number;
let hiddenTopicSlug: string;

async function privateData(db: TestDatabase['db']) {
  const [admin] = await db.select().from(s.users).where(eq(s.users.id, 1));
  const key = generateApiKey();
  await db.insert(s.apiKeys).values({ userId: admin!.id, keyHash: key.hash, prefix: key.prefix });
  secrets.push(key.key, key.hash);

  // A deactivated user with an e-mail, an upload, a comment, a public filter and a gallery.
  const gone = await insertUser(db, { name: 'Departed Member', email: 'departed@private.example', deletedAt: new Date('2025-05-01T00:00:00Z') });
  deactivatedId = gone.id;
  privateIds.users.push(gone.id);
  secrets.push('Departed Member', 'departed@private.example');
  const visible = await db.select({ id: s.images.id }).from(s.images).where(eq(s.images.hiddenFromUsers, false)).orderBy(s.images.id).limit(2);
  const publicImageId = visible[1]!.id;
  const upload = await insertImage(db, {
    values: { userId: gone.id, ip: '192.0.2.77', fingerprint: 'c-departed-fp', description: 'uploaded by someone who left', createdAt: new Date('2025-04-01T00:00:00Z') },
  });
  await db.insert(s.comments).values({ imageId: publicImageId, userId: gone.id, body: 'a comment from a departed member', ip: '192.0.2.78', fingerprint: 'c-departed-comment', createdAt: new Date('2025-04-02T00:00:00Z') });
  const [goneFilter] = await db.insert(s.filters).values({ name: 'Departed Filter', public: true, userId: gone.id }).returning();
  privateIds.filters.push(goneFilter!.id);
  secrets.push('Departed Filter');
  const [goneGallery] = await db.insert(s.galleries).values({ title: 'Departed Gallery', creatorId: gone.id, thumbnailId: upload.id }).returning();
  privateIds.galleries.push(goneGallery!.id);
  secrets.push('Departed Gallery');

  // Images: unapproved, hidden (deleted), each with a comment; the anonymous upload of the demo.
  const unapproved = await insertImage(db, { values: { approved: false, description: 'UNAPPROVED-IMAGE-TEXT', userId: 4, ip: '192.0.2.10', fingerprint: 'c-unapproved' } });
  const hidden = await insertImage(db, {
    values: { hiddenFromUsers: true, deletionReason: 'Rule #1', description: 'HIDDEN-IMAGE-TEXT', imageName: 'HIDDEN-IMAGE-NAME.png', userId: 4 },
  });
  hiddenImageId = hidden.id;
  privateIds.images.push(unapproved.id);
  secrets.push('UNAPPROVED-IMAGE-TEXT', 'HIDDEN-IMAGE-TEXT', 'HIDDEN-IMAGE-NAME');
  const commentOn = async (imageId: number, body: string, values: Partial<typeof s.comments.$inferInsert> = {}) => {
    const [c] = await db.insert(s.comments).values({ imageId, userId: 5, body, ...values }).returning();
    privateIds.comments.push(c!.id);
    secrets.push(body);
  };
  await commentOn(unapproved.id, 'COMMENT-ON-UNAPPROVED-IMAGE');
  await commentOn(hidden.id, 'COMMENT-ON-HIDDEN-IMAGE');
  await commentOn(publicImageId, 'HIDDEN-COMMENT-TEXT', { hiddenFromUsers: true, deletionReason: 'Spam' });
  await commentOn(publicImageId, 'DESTROYED-COMMENT-TEXT', { hiddenFromUsers: true, destroyedContent: true });
  await commentOn(publicImageId, 'UNAPPROVED-COMMENT-TEXT', { approved: false });
  const [anon] = await db.select().from(s.images).where(and(eq(s.images.anonymous, true), eq(s.images.hiddenFromUsers, false))).limit(1);
  anonymousImageId = anon!.id;

  // Forums: the demo's staff forum; a destroyed, a hidden and an unapproved post; a hidden topic.
  const [general] = await db.select().from(s.forums).where(eq(s.forums.shortName, 'dis'));
  const [staff] = await db.select().from(s.forums).where(eq(s.forums.shortName, 'staff'));
  secrets.push('Staff Room');
  const staffTopics = await db.select().from(s.topics).where(eq(s.topics.forumId, staff!.id));
  for (const t of staffTopics) secrets.push(`"slug":"${t.slug}"`);
  const staffPosts = await db.select({ id: s.posts.id }).from(s.posts).innerJoin(s.topics, eq(s.topics.id, s.posts.topicId)).where(eq(s.topics.forumId, staff!.id));
  privateIds.posts.push(...staffPosts.map((p) => p.id));
  const [topic] = await db.select().from(s.topics).where(eq(s.topics.forumId, general!.id)).orderBy(s.topics.id).limit(1);
  const next = (await db.execute<{ next: number }>(sql`select max(topic_position) + 1 as next from posts where topic_id = ${topic!.id}`))[0]!.next;
  const post = async (topicId: number, position: number, body: string, values: Partial<typeof s.posts.$inferInsert> = {}) => {
    const [p] = await db.insert(s.posts).values({ topicId, topicPosition: position, userId: 6, body, ip: '192.0.2.99', fingerprint: 'c-post-fp', createdAt: new Date('2025-05-30T00:00:00Z'), ...values }).returning();
    privateIds.posts.push(p!.id);
    secrets.push(body);
  };
  await post(topic!.id, next, 'DESTROYED-POST-TEXT', { destroyedContent: true, hiddenFromUsers: true });
  await post(topic!.id, next + 1, 'HIDDEN-POST-TEXT', { hiddenFromUsers: true });
  await post(topic!.id, next + 2, 'UNAPPROVED-POST-TEXT', { approved: false });
  await post(staffTopics[0]!.id, 99, 'STAFF-ONLY-POST-TEXT');
  const [hiddenTopic] = await db
    .insert(s.topics)
    .values({ forumId: general!.id, title: 'HIDDEN-TOPIC-TITLE', slug: 'hidden-topic-title', userId: 6, hiddenFromUsers: true, postCount: 1 })
    .returning();
  hiddenTopicSlug = hiddenTopic!.slug;
  secrets.push('HIDDEN-TOPIC-TITLE');
  await post(hiddenTopic!.id, 0, 'POST-IN-HIDDEN-TOPIC');

  // The demo's private filter and private link.
  const priv = await db.select().from(s.filters).where(and(eq(s.filters.system, false), eq(s.filters.public, false)));
  expect(priv.length).toBeGreaterThan(0);
  for (const f of priv) {
    privateIds.filters.push(f.id);
    secrets.push(f.name);
  }
  secrets.push('echo-vale.example.org');

  // Every e-mail, IP and fingerprint of the board.
  const all = await db.execute<{ v: string }>(sql`
    select email as v from users where email is not null
    union select host(ip) from images where ip is not null union select fingerprint from images where fingerprint is not null
    union select host(ip) from comments where ip is not null union select fingerprint from comments where fingerprint is not null
    union select host(ip) from posts where ip is not null union select fingerprint from posts where fingerprint is not null`);
  secrets.push(...all.map((r) => r.v));
}

beforeAll(async () => {
  [source, target] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  dataDir = mkdtempSync(join(tmpdir(), 'tagwise-dumps-'));
  config = loadConfig({
    BASE_URL: 'https://booru.test',
    CDN_URL: 'https://cdn.booru.test',
    DATA_DIR: dataDir,
    ANONYMOUS_NAME_SALT: 'dump-test-salt',
    DEMO_DATA: 'false',
    RATE_LIMITS: 'off',
    DUMP_AT: 'off',
  });
  await seedDemoBoard(source.db, { images: 14, withFiles: false, seed: 11 });
  await source.db.update(s.users).set({ avatar: 'avatars-dir/1-admin.png' }).where(eq(s.users.id, 1));
  await privateData(source.db);

  result = (await writeDump(source.db, { storage: new DirectoryStorage(join(dataDir, 'dumps')), config, now: NOW, batchSize: 5 }))!;
  dumpDir = join(dataDir, 'dumps', result.name);
  manifest = result.manifest;
  for (const name of readdirSync(dumpDir)) {
    const bytes = readFileSync(join(dumpDir, name));
    const text = name.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
    lines[name] = text.split('\n').filter((l) => l !== '');
    if (name.endsWith('.jsonl.gz')) records[name.replace('.jsonl.gz', '')] = lines[name]!.map((l) => JSON.parse(l));
  }

  await importBoard(target.db, await readDump(dumpDir));
  sourceApp = createApp(composeApp({ config, db: source.db, engine: stubEngine, logger: { error: () => {} } }));
  targetApp = createApp(composeApp({ config, db: target.db, engine: stubEngine, logger: { error: () => {} } }));
}, 180_000);

afterAll(async () => {
  await Promise.all([source?.drop(), target?.drop()]);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the dump files', () => {
  it('are in place under DATA_DIR/dumps/<day>/ with latest.json pointing at them', () => {
    expect(result.name).toBe(DAY);
    expect(result.location).toBe(pathToFileURL(join(dataDir, 'dumps', DAY)).href);
    expect(readdirSync(join(dataDir, 'dumps')).sort()).toEqual([DAY, 'latest.json']);
    expect(JSON.parse(readFileSync(join(dataDir, 'dumps', 'latest.json'), 'utf8'))).toEqual({ name: DAY, created_at: '2025-06-02T03:00:00Z' });
    expect(readdirSync(dumpDir).sort()).toEqual(['SHA256SUMS', 'board.json', 'manifest.json', ...DUMP_RESOURCES.map(resourceFile)].sort());
  });

  it('hold no private data anywhere', () => {
    expect(secrets.length).toBeGreaterThan(60);
    for (const [file, list] of Object.entries(lines)) {
      for (const line of list) {
        for (const secret of secrets) {
          if (line.includes(secret)) expect.fail(`${file} contains ${JSON.stringify(secret)}: ${line.slice(0, 300)}`);
        }
        expect(line).not.toMatch(/"(email|api_key|key_hash|ip|fingerprint|anonymous|deleted_at)":/);
      }
    }
    const ids = (resource: keyof typeof privateIds) => new Set(records[resource]!.map((r) => r.id as number));
    for (const resource of Object.keys(privateIds) as Array<keyof typeof privateIds>) {
      for (const id of privateIds[resource]) expect(ids(resource).has(id), `${resource} ${id}`).toBe(false);
    }
    // Nobody is attributed to the deactivated user, and anonymous content names nobody.
    for (const list of Object.values(records)) {
      for (const r of list) for (const field of ['user_id', 'uploader_id', 'creator_id']) expect(r[field]).not.toBe(deactivatedId);
    }
    const anon = records.images!.find((i) => i.id === anonymousImageId)!;
    expect(anon).toMatchObject({ uploader_id: null, uploader: null });
    expect(records.topics!.map((t) => t.slug)).not.toContain(hiddenTopicSlug);
    expect(records.forums!.map((f) => f.short_name).sort()).toEqual(['art', 'dis', 'meta']);
  });

  it('reduce hidden images to their public stub', () => {
    const stub = records.images!.find((i) => i.id === hiddenImageId);
    expect(stub).toEqual({
      id: hiddenImageId,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      first_seen_at: expect.any(String),
      hidden_from_users: true,
      duplicate_of: null,
      deletion_reason: 'Rule #1',
    });
    const merged = records.images!.filter((i) => i.duplicate_of !== null);
    expect(merged.length).toBeGreaterThan(0);
    for (const m of merged) expect(Object.keys(m).sort()).toEqual(Object.keys(stub!).sort());
  });

  it('are counted right in the manifest, and their checksums verify', async () => {
    const count = async (q: ReturnType<typeof sql>) => (await source.db.execute<{ n: number }>(q))[0]!.n;
    const expected: Record<string, number> = {
      users: await count(sql`select count(*)::int as n from users where deleted_at is null`),
      tags: await count(sql`select count(*)::int as n from tags`),
      images: await count(sql`select count(*)::int as n from images where approved`),
      comments: await count(sql`select count(*)::int as n from comments c join images i on i.id = c.image_id
        where c.approved and not c.hidden_from_users and not c.destroyed_content and i.approved and not i.hidden_from_users`),
      forums: await count(sql`select count(*)::int as n from forums where access_level = 'normal'`),
      topics: await count(sql`select count(*)::int as n from topics t join forums f on f.id = t.forum_id where f.access_level = 'normal' and not t.hidden_from_users`),
      posts: await count(sql`select count(*)::int as n from posts p join topics t on t.id = p.topic_id join forums f on f.id = t.forum_id
        where f.access_level = 'normal' and not t.hidden_from_users and p.approved and not p.hidden_from_users and not p.destroyed_content`),
      galleries: await count(sql`select count(*)::int as n from galleries g join users u on u.id = g.creator_id where u.deleted_at is null`),
      filters: await count(sql`select count(*)::int as n from filters f left join users u on u.id = f.user_id
        where (f.system or f.public) and (f.user_id is null or u.deleted_at is null)`),
    };
    for (const resource of DUMP_RESOURCES) {
      const entry = manifest.files.find((f) => f.name === resourceFile(resource))!;
      expect(entry.records, resource).toBe(expected[resource]);
      expect(lines[resourceFile(resource)]!.length, resource).toBe(expected[resource]);
      expect(entry.records, resource).toBeGreaterThan(0);
    }
    for (const f of manifest.files) {
      const bytes = readFileSync(join(dumpDir, f.name));
      expect(bytes.length).toBe(f.bytes);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(f.sha256);
    }
    expect(JSON.parse(readFileSync(join(dumpDir, 'board.json'), 'utf8'))).toMatchObject({ featured_image_id: expect.any(Number), dumped_at: '2025-06-02T03:00:00Z' });
    // SHA256SUMS in sha256sum's own format, covering the manifest too; sha256sum agrees.
    const sums = readFileSync(join(dumpDir, 'SHA256SUMS'), 'utf8');
    expect(sums).toMatch(/^([0-9a-f]{64} {2}[\w.]+\n){11}$/);
    for (const line of sums.trim().split('\n')) {
      const [hash, name] = line.split('  ') as [string, string];
      expect(createHash('sha256').update(readFileSync(join(dumpDir, name))).digest('hex'), name).toBe(hash);
    }
    const check = await new Promise<{ code: number; out: string }>((done) =>
      execFile('sha256sum', ['-c', 'SHA256SUMS'], { cwd: dumpDir }, (err, stdout) => done({ code: err ? Number(err.code ?? -1) : 0, out: stdout })),
    );
    if (check.code !== -2 && !Number.isNaN(check.code)) expect(check, check.out).toMatchObject({ code: 0 });
  });

  it('refuses to read a damaged dump', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'tagwise-dump-copy-'));
    try {
      for (const name of readdirSync(dumpDir)) writeFileSync(join(copy, name), readFileSync(join(dumpDir, name)));
      const bytes = readFileSync(join(copy, 'tags.jsonl.gz'));
      const at = bytes.length - 12;
      bytes[at] = bytes[at]! ^ 0xff;
      writeFileSync(join(copy, 'tags.jsonl.gz'), bytes);
      await expect(readDump(copy)).rejects.toThrow(/^tags\.jsonl\.gz/);
      // Cut short, and read without the manifest: the broken gzip stream is the error.
      writeFileSync(join(copy, 'users.jsonl.gz'), readFileSync(join(dumpDir, 'users.jsonl.gz')).subarray(0, 40));
      await expect(readDump(join(copy, 'users.jsonl.gz'), { verify: false })).rejects.toThrow(/^users\.jsonl\.gz: unexpected end of file/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe('importing the dump into an empty database', () => {
  const get = async (app: ReturnType<typeof createApp>, path: string) => {
    const res = await app.request(`/api/v1/json${path}`);
    return { status: res.status, body: (await res.json()) as any };
  };
  /**
   * Anonymous names are salted with who wrote the text, which the dump does not carry; content of
   * a deactivated user is unattributed in the dump.
   */
  const unattributed = (x: any) => {
    if (!x || typeof x.author !== 'string') return x;
    const { author, avatar: _avatar, ...rest } = x;
    if (x.user_id === deactivatedId) return { ...rest, user_id: null };
    if (x.user_id !== null) return x;
    expect(author).toMatch(/^Background Pony #[0-9A-F]{4}$/);
    return rest;
  };
  const same = async (path: string, normalise: (body: any) => any = (b) => b) => {
    const [a, b] = await Promise.all([get(sourceApp, path), get(targetApp, path)]);
    expect(a.status, path).toBe(200);
    expect(normalise(b.body), path).toEqual(normalise(a.body));
  };

  it('answers the same for images, the featured image, tags and profiles', async () => {
    const upload = (b: any) =>
      b.image.uploader_id === deactivatedId ? { ...b, image: { ...b.image, uploader: null, uploader_id: null } } : b;
    for (const img of records.images!.filter((i) => !i.hidden_from_users)) await same(`/images/${img.id}`, upload);
    await same('/images/featured');
    // Every tag with relations or do-not-post entries, and the first others.
    const related = (t: any) => t.aliased_tag || t.aliases.length || t.implied_tags.length || t.implied_by_tags.length || t.dnp_entries.length;
    const someTags = records.tags!.filter((t, i) => related(t) || i < 20);
    expect(someTags.filter(related).length).toBeGreaterThan(5);
    for (const tag of someTags) await same(`/tags/${encodeURIComponent(tag.slug)}`);
    for (const user of records.users!) await same(`/profiles/${user.id}`);
    expect((await get(targetApp, `/profiles/${deactivatedId}`)).status).toBe(404);
    expect((await get(targetApp, `/images/${privateIds.images[0]}`)).status).toBe(404);
  });

  it('answers the same for comments, forums, topics, posts and filters (anonymous names aside)', async () => {
    expect(records.comments!.some((c) => c.user_id === null)).toBe(true);
    for (const c of records.comments!) await same(`/comments/${c.id}`, (b) => ({ comment: unattributed(b.comment) }));
    await same('/forums');
    for (const f of records.forums!) {
      await same(`/forums/${f.short_name}`);
      await same(`/forums/${f.short_name}/topics?per_page=50`, (b) => ({ ...b, topics: b.topics.map(unattributed) }));
    }
    for (const t of records.topics!) {
      await same(`/forums/${t.forum}/topics/${t.slug}`, (b) => ({ topic: unattributed(b.topic) }));
      // Hidden posts (their placeholders with body null) and unapproved ones are not in the dump.
      await same(`/forums/${t.forum}/topics/${t.slug}/posts?per_page=50`, (b) => ({
        ...b,
        posts: b.posts.filter((p: any) => p.body !== null && !privateIds.posts.includes(p.id)).map(unattributed),
      }));
    }
    for (const p of records.posts!) await same(`/posts/${p.id}`, (b) => ({ post: unattributed(b.post) }));
    await same('/filters/system');
    for (const f of records.filters!.filter((x) => !x.system)) await same(`/filters/${f.id}`);
  });
});

describe('the HTTP routes', () => {
  const req = (path: string, init?: RequestInit) => sourceApp.request(path, init);

  it('list the dumps with their files, sizes, checksums and URLs', async () => {
    const res = await req('/dumps/');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const body = (await res.json()) as any;
    expect(body.latest).toBe(DAY);
    expect(body.dumps).toHaveLength(1);
    const [dump] = body.dumps;
    expect(dump).toMatchObject({ name: DAY, created_at: '2025-06-02T03:00:00Z', url: `https://booru.test/dumps/${DAY}/` });
    for (const f of manifest.files) {
      expect(dump.files).toContainEqual({ ...f, url: `https://booru.test/dumps/${DAY}/${f.name}` });
    }
    expect(dump.files.map((f: any) => f.name)).toEqual(expect.arrayContaining(['manifest.json', 'SHA256SUMS']));
    expect(await (await req('/dumps')).json()).toEqual(body);
    expect(((await (await req(`/dumps/${DAY}/`)).json()) as any).dump).toEqual(dump);
    expect(await (await req('/dumps/latest.json')).json()).toMatchObject({ name: DAY, url: `https://booru.test/dumps/${DAY}/` });
  });

  it('serve every file with its type, length and checksum', async () => {
    for (const f of manifest.files) {
      const res = await req(`/dumps/${DAY}/${f.name}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(f.name.endsWith('.gz') ? 'application/gzip' : 'application/json');
      expect(res.headers.get('content-length')).toBe(String(f.bytes));
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
      expect(res.headers.get('content-encoding')).toBeNull();
      expect(createHash('sha256').update(Buffer.from(await res.arrayBuffer())).digest('hex')).toBe(f.sha256);
    }
    const sums = await req(`/dumps/${DAY}/SHA256SUMS`);
    expect(sums.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await sums.text()).toBe(readFileSync(join(dumpDir, 'SHA256SUMS'), 'utf8'));
    const latest = await req('/dumps/latest/images.jsonl.gz');
    expect(latest.status).toBe(302);
    expect(latest.headers.get('location')).toBe(`https://booru.test/dumps/${DAY}/images.jsonl.gz`);
  });

  it('answer ranges, conditional and HEAD requests', async () => {
    const path = `/dumps/${DAY}/images.jsonl.gz`;
    const whole = readFileSync(join(dumpDir, 'images.jsonl.gz'));
    const first = await req(path, { headers: { Range: 'bytes=0-99' } });
    expect(first.status).toBe(206);
    expect(first.headers.get('content-range')).toBe(`bytes 0-99/${whole.length}`);
    expect(first.headers.get('content-length')).toBe('100');
    expect(Buffer.from(await first.arrayBuffer())).toEqual(whole.subarray(0, 100));
    const rest = await req(path, { headers: { Range: 'bytes=100-' } });
    expect(Buffer.concat([whole.subarray(0, 100), Buffer.from(await rest.arrayBuffer())])).toEqual(whole);
    const tail = await req(path, { headers: { Range: 'bytes=-10' } });
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(whole.subarray(whole.length - 10));
    const beyond = await req(path, { headers: { Range: `bytes=${whole.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${whole.length}`);
    const etag = (await req(path, { method: 'HEAD' })).headers.get('etag')!;
    const again = await req(path, { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    const head = await req(path, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(whole.length));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it('answer 404 JSON for unknown dumps and files, and for every path that tries to leave the dumps', async () => {
    writeFileSync(join(dataDir, 'outside-secret.txt'), 'TOP-SECRET');
    writeFileSync(join(dataDir, 'dumps', 'stray.json'), '"TOP-SECRET"');
    writeFileSync(join(dumpDir, 'extra.json'), '"TOP-SECRET"');
    const paths = [
      `/dumps/1999-01-01/users.jsonl.gz`,
      `/dumps/${DAY}/nothing.jsonl.gz`,
      `/dumps/${DAY}/extra.json`,
      `/dumps/latest/extra.json`,
      `/dumps/2025-13-45/`,
      `/dumps/stray.json`,
      `/dumps/${DAY}/..%2F..%2Foutside-secret.txt`,
      `/dumps/${DAY}/%2e%2e%2fstray.json`,
      `/dumps/..%2F..%2F/outside-secret.txt`,
      `/dumps/${DAY}%2F..%2F..%2F/outside-secret.txt`,
      `/dumps/${DAY}/..%5C..%5Coutside-secret.txt`,
      `/dumps/${DAY}/users.jsonl.gz%00.txt`,
      `/dumps/%2e%2e/outside-secret.txt`,
      `/dumps/../outside-secret.txt`,
      `/dumps/${DAY}/../../outside-secret.txt`,
    ];
    for (const path of paths) {
      const res = await req(path);
      const text = await res.text();
      expect(res.status, path).toBe(404);
      expect(JSON.parse(text), path).toEqual({ error: 'Not found' });
      expect(text).not.toContain('TOP-SECRET');
    }
  });
});
