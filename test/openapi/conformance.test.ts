/**
 * Conformance: real answers of every route, on a fixture board, validated against the zod
 * schema the OpenAPI document states for their operation and status — and against the JSON
 * Schema of the document itself (ajv), so that the conversion is checked as well. An answer
 * whose status the document does not list for its operation is a failure too.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../src/http/request/api-prefix.js';
import { buildOpenApiDocument } from '../../src/http/openapi/document.js';
import { matchOperation } from '../../src/http/openapi/operations.js';
import { BASE_URL, SITE_NAME } from '../http/harness.js';
import { startBoard, type Board } from './board.js';

type Json = Record<string, any>;

let board: Board;
beforeAll(async () => {
  board = await startBoard();
});
afterAll(async () => {
  await board?.close();
});

const doc = buildOpenApiDocument({ baseUrl: BASE_URL, siteName: SITE_NAME }) as Json;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: 'doc', components: doc.components });
const validators = new Map<string, ValidateFunction>();

/** The document's JSON Schema of an answer, compiled with its component references. */
function documentValidator(template: string, method: string, status: number): ValidateFunction | undefined {
  const key = `${method} ${template} ${status}`;
  const cached = validators.get(key);
  if (cached) return cached;
  const schema = doc.paths[template]?.[method]?.responses?.[status]?.content?.['application/json']?.schema;
  if (!schema) return undefined;
  const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'));
  const validate = ajv.compile({ $id: `answer-${validators.size}`, ...rewritten });
  validators.set(key, validate);
  return validate;
}

interface Checked {
  status: number;
  body: any;
}

/** Request, then check the answer against the operation's schemas for its status. */
async function check(method: 'GET' | 'POST', pathAndQuery: string, init: RequestInit = {}): Promise<Checked> {
  const res = await board.h.request(`${API_PREFIX}${pathAndQuery}`, { method, ...init });
  const text = await res.text();
  const path = pathAndQuery.split('?', 1)[0]!;
  const op = matchOperation(method, path);
  const where = `${method} ${pathAndQuery} → ${res.status}`;
  expect(op, `${where}: no operation documents this path`).toBeDefined();
  const spec = op!.responses[res.status];
  expect(spec, `${where}: status not documented (body ${text.slice(0, 300)})`).toBeDefined();
  if (!spec!.schema) {
    expect(text, where).toBe('');
    return { status: res.status, body: null };
  }
  expect(res.headers.get('content-type'), where).toMatch(/^application\/json/);
  const body = JSON.parse(text);
  const parsed = spec!.schema.safeParse(body);
  expect(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`), where).toEqual([]);
  const validate = documentValidator(op!.path, op!.method, res.status)!;
  expect(validate(body) ? [] : validate.errors, `${where} (document schema)`).toEqual([]);
  return { status: res.status, body };
}

const expectStatus = async (status: number, method: 'GET' | 'POST', path: string, init?: RequestInit) => {
  const got = await check(method, path, init);
  expect(got.status, `${method} ${path}`).toBe(status);
  return got.body;
};

describe('images', () => {
  it('a visible image, anonymously and with a key (interactions), through filters', async () => {
    const { visibleImage } = board.ids;
    const anon = await expectStatus(200, 'GET', `/images/${visibleImage}`);
    expect(anon.image.intensities).toEqual({ nw: 10.5, ne: 20, sw: 30.25, se: 40 });
    expect(anon.image.spoilered).toBe(true);
    const keyed = await expectStatus(200, 'GET', `/images/${visibleImage}?key=${board.key}`);
    expect(keyed.interactions.length).toBe(2);
    await expectStatus(200, 'GET', `/images/${visibleImage}?filter_id=${board.ids.publicFilter}`);
  });

  it('gif (webm and mp4 versions), anonymous svg still processing, merged and deleted images', async () => {
    const gif = await expectStatus(200, 'GET', `/images/${board.ids.gifImage}`);
    expect(Object.keys(gif.image.representations)).toEqual(expect.arrayContaining(['webm', 'mp4']));
    const svg = await expectStatus(200, 'GET', `/images/${board.ids.anonymousImage}`);
    expect(svg.image.uploader).toBeNull();
    const merged = await expectStatus(200, 'GET', `/images/${board.ids.mergedImage}`);
    expect(merged.image).toMatchObject({ hidden_from_users: true, duplicate_of: board.ids.visibleImage, deletion_reason: null });
    const deleted = await expectStatus(200, 'GET', `/images/${board.ids.deletedImage}`);
    expect(deleted.image).toMatchObject({ hidden_from_users: true, duplicate_of: null, deletion_reason: 'Rule #1' });
  });

  it('featured, unknown and malformed ids, a refused key', async () => {
    await expectStatus(200, 'GET', '/images/featured');
    await expectStatus(404, 'GET', '/images/999999');
    await expectStatus(404, 'GET', '/images/abc');
    await expectStatus(403, 'GET', `/images/${board.ids.visibleImage}?key=${board.deactivatedKey}`);
  });

  it('POST /images: no key, wrong content type, malformed JSON, wrong field types, a refused URL', async () => {
    await expectStatus(401, 'POST', '/images', { headers: { 'content-type': 'application/json' }, body: '{}' });
    await expectStatus(415, 'POST', `/images?key=${board.key}`, { headers: { 'content-type': 'text/plain' }, body: 'x' });
    await expectStatus(400, 'POST', `/images?key=${board.key}`, { headers: { 'content-type': 'application/json' }, body: '{' });
    const typed = await expectStatus(400, 'POST', `/images?key=${board.key}`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 5, image: { tag_input: [] } }),
    });
    expect(Object.keys(typed.errors).sort()).toEqual(['tag_input', 'url']);
    const refused = await expectStatus(400, 'POST', `/images?key=${board.key}`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://127.0.0.1/a.png', image: { tag_input: 'safe', description: 'x' } }),
    });
    expect(refused.errors).toBeDefined();
  });
});

describe('comments, posts, profiles, tags', () => {
  it('comments: normal, hidden, anonymous; 403 on a hidden image; 404 when destroyed or unknown', async () => {
    const normal = await expectStatus(200, 'GET', `/comments/${board.ids.comment}`);
    expect(normal.comment.edited_at).toMatch(/Z$/);
    const hidden = await expectStatus(200, 'GET', `/comments/${board.ids.hiddenComment}`);
    expect(hidden.comment.body).toBeNull();
    const anon = await expectStatus(200, 'GET', `/comments/${board.ids.anonymousComment}`);
    expect(anon.comment).toMatchObject({ user_id: null, avatar: expect.stringMatching(/^data:image\/svg\+xml/) });
    await expectStatus(403, 'GET', `/comments/${board.ids.commentOnHiddenImage}`);
    await expectStatus(404, 'GET', `/comments/${board.ids.destroyedComment}`);
    await expectStatus(404, 'GET', '/comments/0');
  });

  it('posts, profiles (links and awards), tags (aliases, implications, DNP)', async () => {
    await expectStatus(200, 'GET', `/posts/${board.ids.post}`);
    const hidden = await expectStatus(200, 'GET', `/posts/${board.ids.hiddenPost}`);
    expect(hidden.post.body).toBeNull();
    await expectStatus(404, 'GET', '/posts/999999');
    const profile = await expectStatus(200, 'GET', `/profiles/${board.ids.profile}`);
    expect(profile.user.links).toHaveLength(1);
    expect(profile.user.awards).toHaveLength(1);
    expect(profile.user.role).toBe('user');
    await expectStatus(404, 'GET', `/profiles/${board.ids.deactivatedUser}`);
    const tag = await expectStatus(200, 'GET', `/tags/${board.ids.tagSlug}`);
    expect(tag.tag.dnp_entries).toHaveLength(2);
    expect(tag.tag.aliases).toEqual([board.ids.aliasSlug]);
    const alias = await expectStatus(200, 'GET', `/tags/${encodeURIComponent(board.ids.aliasSlug)}`);
    expect(alias.tag.aliased_tag).toBe(board.ids.tagSlug);
    await expectStatus(404, 'GET', '/tags/artist%3Aconformance');
  });
});

describe('filters, forums, oembed', () => {
  it('filters: system, public, own, private, lists, and /filters/user without a key', async () => {
    await expectStatus(200, 'GET', `/filters/${board.ids.defaultFilter}`);
    await expectStatus(200, 'GET', `/filters/${board.ids.publicFilter}`);
    await expectStatus(200, 'GET', `/filters/${board.ids.ownFilter}?key=${board.key}`);
    await expectStatus(404, 'GET', `/filters/${board.ids.privateFilter}`);
    const system = await expectStatus(200, 'GET', '/filters/system?page=1&per_page=1');
    expect(system.total).toBe(2);
    const own = await expectStatus(200, 'GET', `/filters/user?key=${board.key}`);
    expect(own.filters).toHaveLength(1);
    await expectStatus(403, 'GET', '/filters/user');
    await expectStatus(403, 'GET', '/filters/user?key=nope');
  });

  it('forums, topics and posts, with 404s', async () => {
    const { forum, topic } = board.ids;
    await expectStatus(200, 'GET', '/forums');
    await expectStatus(200, 'GET', `/forums/${forum}`);
    await expectStatus(404, 'GET', '/forums/staff');
    const topics = await expectStatus(200, 'GET', `/forums/${forum}/topics`);
    expect(topics.topics).toHaveLength(2);
    await expectStatus(200, 'GET', `/forums/${forum}/topics/${topic}`);
    await expectStatus(404, 'GET', `/forums/${forum}/topics/nope`);
    const posts = await expectStatus(200, 'GET', `/forums/${forum}/topics/${topic}/posts?per_page=2&page=1`);
    expect(posts.posts.map((p: { body: string | null }) => p.body)).toEqual(['First', null]);
    await expectStatus(200, 'GET', `/forums/${forum}/topics/${topic}/posts/${board.ids.post}`);
    await expectStatus(404, 'GET', `/forums/${forum}/topics/${topic}/posts/999999`);
  });

  it('oembed by page and file URL; 404 for hidden images and no id', async () => {
    const page = await expectStatus(200, 'GET', `/oembed?url=${encodeURIComponent(`${BASE_URL}/images/${board.ids.visibleImage}`)}`);
    expect(page).toMatchObject({ type: 'photo', version: '1.0', cache_age: 7200, provider_url: 'https://booru.test' });
    await expectStatus(200, 'GET', `/oembed?url=${encodeURIComponent(`https://cdn.booru.test/img/view/2024/5/1/${board.ids.visibleImage}.png`)}`);
    await expectStatus(404, 'GET', `/oembed?url=${encodeURIComponent(`${BASE_URL}/images/${board.ids.deletedImage}`)}`);
    await expectStatus(404, 'GET', '/oembed');
  });
});

describe('search', () => {
  it('images (and the /search alias), with key, sort and filter; query errors', async () => {
    const all = await expectStatus(200, 'GET', '/search/images?q=*&sf=score&sd=asc');
    expect(all.total).toBeGreaterThan(0);
    const keyed = await expectStatus(200, 'GET', `/search/images?q=safe&key=${board.key}&per_page=50`);
    expect(keyed.interactions.length).toBeGreaterThan(0);
    await expectStatus(200, 'GET', `/search?q=safe&filter_id=${board.ids.publicFilter}`);
    await expectStatus(200, 'GET', `/search/images?q=*&del=1&key=${board.moderatorKey}`);
    await expectStatus(200, 'GET', '/search/images');
    await expectStatus(400, 'GET', '/search/images?q=(safe');
    await expectStatus(400, 'GET', '/search/images?q=a&q=b');
  });

  it('comments (withheld ones for staff), posts, galleries, tags, filters', async () => {
    const comments = await expectStatus(200, 'GET', '/search/comments?q=*');
    expect(comments.total).toBeGreaterThan(0);
    const staff = await expectStatus(200, 'GET', `/search/comments?q=*&key=${board.moderatorKey}`);
    expect(staff.comments.some((c: { author: string | null }) => c?.author === null)).toBe(true);
    await expectStatus(200, 'GET', '/search/posts?q=*');
    const galleries = await expectStatus(200, 'GET', '/search/galleries?q=*');
    expect(galleries.galleries[0]).toMatchObject({ user: 'Conformance Artist', creator: 'Conformance Artist' });
    const tags = await expectStatus(200, 'GET', `/search/tags?q=id:1`);
    expect(tags.total).toBe(1);
    await expectStatus(200, 'GET', `/search/filters?q=*&key=${board.key}`);
    await expectStatus(400, 'GET', '/search/tags?q[]=x');
    await expectStatus(400, 'GET', '/search/comments?q=created_at:nope');
  });

  it('explain', async () => {
    const explained = await expectStatus(200, 'GET', '/search/explain?index=images&q=safe');
    expect(explained.index).toBe('images');
    await expectStatus(400, 'GET', '/search/explain?q=safe');
    await expectStatus(400, 'GET', '/search/explain?index=nope&q=safe');
  });

  it('reverse search: empty result without an image, for an invalid limit, and for a refused URL', async () => {
    const empty = await expectStatus(200, 'POST', '/search/reverse');
    expect(empty).toEqual({ images: [], interactions: [], total: 0 });
    await expectStatus(200, 'POST', '/search/reverse?url=https%3A%2F%2F127.0.0.1%2Fa.png&distance=.3');
    await expectStatus(200, 'POST', '/search/reverse?limit=999', { headers: { 'content-type': 'application/json' }, body: '{"url": 5}' });
  });
});
