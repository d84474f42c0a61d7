/**
 * Quick standalone check of the embedded engine at board scale (not part of `npm run bench`):
 * generates N synthetic image documents (default 1,000,000; ~25 tags each drawn Zipf-like from
 * 200,000 tags), bulk loads them, then times a query mix, each query wrapped with a filter's
 * exclusions as the images endpoint does. Prints load time, p50/p99 per query kind and RSS.
 *
 *   node --expose-gc --import tsx bench/_embedded-quick.ts [docs] [queriesPerKind] [kindRegex]
 */
import { EmbeddedEngine } from '../src/search/embedded/index.js';
import type { IndexDocument, SearchRequest } from '../src/search/engine.js';
import type { IndexMapping } from '../src/search/mapping.js';

const N = Number(process.argv[2] ?? 1_000_000);
const PER_KIND = Number(process.argv[3] ?? 200);
const ONLY = process.argv[4] ? new RegExp(process.argv[4]) : null;
const TAGS = 200_000;
const TAGS_PER_IMAGE = 25;

// deterministic PRNG (mulberry32)
let state = 0x2545f491;
function rand(): number {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (n: number) => Math.floor(rand() * n);

// Zipf(s = 1) over tag ranks 1..TAGS by inverse CDF
const cdf = new Float64Array(TAGS);
{
  let sum = 0;
  for (let r = 0; r < TAGS; r++) cdf[r] = sum += 1 / (r + 1);
  for (let r = 0; r < TAGS; r++) cdf[r]! /= sum;
}
function zipfTag(): number {
  const u = rand();
  let lo = 0;
  let hi = TAGS - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cdf[mid]! < u) lo = mid + 1;
    else hi = mid;
  }
  return lo + 1; // tag id = rank
}

const NAMESPACES = ['artist:', 'oc:', 'species:', '', '', '', '', '', '', ''];
const WORDS = ['pony', 'cute', 'happy', 'smile', 'blue', 'night', 'sky', 'tree', 'dragon', 'unicorn', 'pegasus', 'hat', 'solo', 'duo', 'art', 'comic'];
const tagName = (id: number) => `${NAMESPACES[id % NAMESPACES.length]}${WORDS[id % WORDS.length]} ${id.toString(36)}`;
// documents get fresh flat strings, as decoded from a database row (not shared, not hashed yet)
const tagBytes = Array.from({ length: TAGS + 1 }, (_, id) => Buffer.from(tagName(id), 'latin1'));
const freshTagName = (id: number) => tagBytes[id]!.toString('latin1');

const mapping: IndexMapping = {
  dynamic: false,
  properties: {
    id: { type: 'integer' },
    score: { type: 'integer' },
    upvotes: { type: 'integer' },
    downvotes: { type: 'integer' },
    faves: { type: 'integer' },
    comment_count: { type: 'integer' },
    width: { type: 'integer' },
    height: { type: 'integer' },
    tag_count: { type: 'integer' },
    aspect_ratio: { type: 'float' },
    wilson_score: { type: 'float' },
    created_at: { type: 'date' },
    first_seen_at: { type: 'date' },
    updated_at: { type: 'date' },
    approved: { type: 'boolean' },
    hidden_from_users: { type: 'boolean' },
    animated: { type: 'boolean' },
    tag_ids: { type: 'keyword' },
    tags: { type: 'keyword' },
    uploader_id: { type: 'keyword' },
    uploader: { type: 'keyword' },
    favourited_by_user_ids: { type: 'keyword' },
    mime_type: { type: 'keyword' },
    description: { type: 'text', analyzer: 'snowball' },
    galleries: { type: 'nested', properties: { id: { type: 'integer' }, position: { type: 'integer' } } },
  },
};

const T0 = Date.parse('2012-01-01T00:00:00Z');
function makeDoc(id: number): IndexDocument {
  const tagSet = new Set<number>();
  while (tagSet.size < TAGS_PER_IMAGE) tagSet.add(zipfTag());
  const tagIds = [...tagSet];
  const up = int(300);
  const down = int(30);
  const created = T0 + id * 300_000 + int(100_000);
  const width = 500 + int(3000);
  const height = 500 + int(3000);
  const favs: number[] = [];
  for (let i = int(6); i > 0; i--) favs.push(1 + int(100_000));
  const doc: IndexDocument = {
    id,
    score: up - down,
    upvotes: up,
    downvotes: down,
    faves: favs.length,
    comment_count: int(20),
    width,
    height,
    tag_count: tagIds.length,
    aspect_ratio: width / height,
    wilson_score: rand(),
    created_at: new Date(created).toISOString(),
    first_seen_at: new Date(created + int(1000)).toISOString(),
    updated_at: new Date(created + int(10_000_000)).toISOString(),
    approved: rand() > 0.001,
    hidden_from_users: rand() < 0.01,
    animated: rand() < 0.05,
    tag_ids: tagIds,
    tags: tagIds.map(freshTagName),
    uploader_id: 1 + int(50_000),
    uploader: `user${int(50_000)}`,
    favourited_by_user_ids: favs,
    mime_type: rand() < 0.8 ? 'image/png' : 'image/jpeg',
  };
  if (rand() < 0.1) doc.description = `A ${WORDS[int(16)]} ${WORDS[int(16)]} drawing of a ${WORDS[int(16)]} under the ${WORDS[int(16)]}`;
  if (rand() < 0.01) doc.galleries = [{ id: 1 + int(1000), position: int(500) }];
  return doc;
}

const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
const mb = (b: number) => `${(b / 1048576).toFixed(0)} MB`;
const gc = (globalThis as { gc?: () => void }).gc;

async function main() {
  const engine = new EmbeddedEngine();
  await engine.ensureIndex({ name: 'images', mapping });
  let loadMs = 0;
  let genMs = 0;
  let loadCpu = 0;
  const BATCH = 10_000;
  for (let start = 1; start <= N; start += BATCH) {
    const g0 = performance.now();
    const batch: IndexDocument[] = [];
    for (let id = start; id < start + BATCH && id <= N; id++) batch.push(makeDoc(id));
    const t0 = performance.now();
    genMs += t0 - g0;
    const c0 = process.cpuUsage();
    await engine.write('images', batch);
    const c1 = process.cpuUsage(c0);
    loadCpu += (c1.user + c1.system) / 1000;
    loadMs += performance.now() - t0;
  }
  gc?.();
  const rss = process.memoryUsage();
  console.log(`docs ${N}: bulk load ${(loadMs / 1000).toFixed(1)} s wall, ${(loadCpu / 1000).toFixed(1)} s cpu (generation ${(genMs / 1000).toFixed(1)} s)`);
  console.log(`memory after load: rss ${mb(rss.rss)}, heap ${mb(rss.heapUsed)}, external+arrays ${mb(rss.external + rss.arrayBuffers)}; index structures ≈ ${mb(engine.byteSize('images'))}`);

  const popular = () => 1 + Math.floor(Math.pow(rand(), 3) * 2000); // mostly frequent tags
  const anyTag = () => zipfTag();
  // a filter hiding a few mid-frequency tags (the default filter hides rare, disturbing ones)
  const hidden = [320, 555, 1000, 1999, 4242, 9001, 31337, 65536, 100_000, 150_000];
  const wrap = (q: unknown, sort: unknown[] = [{ first_seen_at: 'desc' }, { id: 'desc' }]): SearchRequest =>
    ({
      query: {
        bool: {
          must: q,
          must_not: [
            { term: { approved: false } },
            { term: { hidden_from_users: true } },
            { bool: { should: [{ terms: { tag_ids: hidden } }, { bool: { should: [{ match_none: {} }, { match_none: {} }] } }] } },
          ],
        },
      },
      sort,
      from: 0,
      size: 15,
    }) as SearchRequest;
  const term = (t: number) => ({ term: { tags: tagName(t) } });
  const kinds: Record<string, () => SearchRequest> = {
    'one tag': () => wrap(term(anyTag())),
    'one popular tag': () => wrap(term(popular())),
    'three tags AND': () => wrap({ bool: { must: [term(popular()), term(popular()), term(popular())] } }),
    'OR of three': () => wrap({ bool: { should: [term(anyTag()), term(anyTag()), term(anyTag())] } }),
    negation: () => wrap({ bool: { must_not: term(popular()) } }),
    'tag + range': () => wrap({ bool: { must: [term(popular()), { range: { score: { gte: 100 + int(150) } } }] } }),
    'wildcard on tags': () => wrap({ wildcard: { tags: `${NAMESPACES[int(3)]}${WORDS[int(16)]} ${int(36).toString(36)}*` } }),
    'sorted by score': () => wrap(term(popular()), [{ score: 'desc' }, { id: 'desc' }]),
    'everything sorted by score': () => wrap({ match_all: {} }, [{ score: 'desc' }, { id: 'desc' }]),
    'random order': () =>
      wrap({ function_score: { query: term(popular()), random_score: { seed: 1 + int(1e9), field: 'id' }, boost_mode: 'replace' } }, [
        { _score: 'desc' },
        { id: 'desc' },
      ]),
    'random order, everything': () =>
      wrap({ function_score: { query: { match_all: {} }, random_score: { seed: 1 + int(1e9), field: 'id' }, boost_mode: 'replace' } }, [
        { _score: 'desc' },
        { id: 'desc' },
      ]),
  };

  const all: number[] = [];
  const allCpu: number[] = [];
  console.log(`\n${'query kind'.padEnd(28)} ${'p50'.padStart(10)} ${'p99'.padStart(10)} ${'max'.padStart(10)} ${'cpu p50'.padStart(10)} ${'cpu p99'.padStart(10)}   mean hits`);
  for (const [name, make] of Object.entries(kinds)) {
    if (ONLY && !ONLY.test(name)) continue;
    for (let i = 0; i < 10; i++) await engine.search('images', make()); // warm-up (lazy sort indexes, JIT)
    const times: number[] = [];
    const cpu: number[] = [];
    let hits = 0;
    for (let i = 0; i < PER_KIND; i++) {
      const req = make();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const r = await engine.search('images', req);
      times.push(performance.now() - t0);
      const c1 = process.cpuUsage(c0);
      cpu.push((c1.user + c1.system) / 1000);
      hits += r.total;
    }
    times.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    all.push(...times);
    allCpu.push(...cpu);
    const p = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
    console.log(
      `${name.padEnd(28)} ${fmt(p(times, 0.5)).padStart(10)} ${fmt(p(times, 0.99)).padStart(10)} ${fmt(times[times.length - 1]!).padStart(10)} ${fmt(p(cpu, 0.5)).padStart(10)} ${fmt(p(cpu, 0.99)).padStart(10)}   ${Math.round(hits / PER_KIND)}`,
    );
  }
  all.sort((a, b) => a - b);
  allCpu.sort((a, b) => a - b);
  const p = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
  console.log(`${'whole mix'.padEnd(28)} ${fmt(p(all, 0.5)).padStart(10)} ${fmt(p(all, 0.99)).padStart(10)} ${''.padStart(10)} ${fmt(p(allCpu, 0.5)).padStart(10)} ${fmt(p(allCpu, 0.99)).padStart(10)}`);
  console.log(`load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')} (other processes share the cores: cpu columns are this process's time)`);
  gc?.();
  console.log(`rss at end ${mb(process.memoryUsage().rss)}`);

  // snapshot round trip when a directory is given (SNAPSHOT_DIR=/tmp/x)
  const dir = process.env.SNAPSHOT_DIR;
  if (dir) {
    const persisted = new EmbeddedEngine({ dataDir: dir });
    await persisted.ensureIndex({ name: 'images', mapping });
    // move the loaded index over by writing the same documents is slow; flush the loaded one instead
    Object.assign(persisted, { indices: (engine as unknown as { indices: unknown }).indices, aliases: (engine as unknown as { aliases: unknown }).aliases });
    (persisted as unknown as { aliasesDirty: boolean }).aliasesDirty = true;
    let t0 = performance.now();
    await persisted.flush();
    console.log(`snapshot written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    t0 = performance.now();
    const reopened = new EmbeddedEngine({ dataDir: dir });
    await reopened.open();
    console.log(`snapshot loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${await reopened.count('images')} documents`);
    const req = kinds['one popular tag']!();
    console.log(`same answer after reload: ${JSON.stringify(await reopened.search('images', req)) === JSON.stringify(await engine.search('images', req))}`);
  }
}

await main();
