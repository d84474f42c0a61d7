/**
 * Benchmark-scale boards: up to millions of images with ~25 tags each, loaded with COPY.
 *
 * Everything is written in one transaction on one connection: the search outbox is skipped
 * (`tagwise.skip_outbox`; the caller reindexes everything afterwards), the outbox triggers of the
 * loaded tables are disabled, their foreign keys and secondary indexes are dropped and rebuilt at
 * the end (validating every reference once, instead of row by row), and the statistics are
 * refreshed. A failure rolls everything back, including the schema changes.
 *
 * Each table is generated in its own pass from its own seeded stream, so the passes can run one
 * after another on the one connection while agreeing on everything (counts are carried between
 * passes in typed arrays). Deterministic: the same options give the same rows.
 */
import { createHash } from 'node:crypto';
import { sql as drizzleSql } from 'drizzle-orm';
import type { Sql } from 'postgres';
import { cleanTagName, slugify, splitNamespace } from '../../grammar/index.js';
import type { Database } from '../db/client.js';
import type { MediaStorage } from '../media/storage.js';
import { RATING_TAGS, categoryFor } from '../contexts/tags/categories.js';
import type { Transaction } from '../db/executor.js';
import { restoreConstraints, setAsideConstraints } from '../db/set-aside.js';
import { fileStoresOf, isBoardEmpty, mapLimit, resetSequences, skipOutbox, truncateBoard } from './common.js';
import { copyInto, copyLine, copyRows } from './copy.js';
import { SYSTEM_FILTERS } from './demo-plan/accounts.js';
import { makeImageFiles, type ImageFileFacts } from './files.js';
import { Random, Zipf, mixSeed } from './random.js';
import {
  ALIASES,
  BODY_TYPES,
  CHARACTERS,
  DEMO_USERS,
  DESCRIPTIONS,
  ERROR_TAGS,
  FIXED_CATEGORIES,
  GENERAL,
  IMPLICATIONS,
  OFFICIAL_CONTENT,
  SPECIES,
  inventName,
} from './vocabulary.js';

export interface BulkProgress {
  phase: 'files' | 'prepare' | 'interactions' | 'images' | 'taggings' | 'sources' | 'tags' | 'indexes' | 'analyze' | 'done';
  done: number;
  total: number;
}

export interface BulkOptions {
  images: number;
  /** Distinct tags (default 200,000, at least the built-in vocabulary). */
  tags?: number;
  /** Accounts (default 50). */
  users?: number;
  seed?: number;
  /** Generate and store real image files like the demo (slow: for small boards). Default false. */
  withFiles?: boolean;
  /** Where the files go (see `DemoOptions.storage`). */
  storage?: MediaStorage;
  concurrency?: number;
  /** Empty the board first, in the same transaction; without it a non-empty board is refused. */
  force?: boolean;
  /** The newest image is just before this (default 2025-06-01). */
  now?: Date;
  onProgress?: (p: BulkProgress) => void;
}

export interface BulkSummary {
  images: number;
  tags: number;
  taggings: number;
  users: number;
  faves: number;
  votes: number;
  sources: number;
  ms: number;
  phases: Record<string, number>;
}

/** The tables COPY fills; their triggers, foreign keys and secondary indexes are set aside during the load. */
const LOADED_TABLES = ['images', 'image_taggings', 'image_faves', 'image_votes', 'image_sources', 'tags', 'users'] as const;

const DAY = 86_400_000;
const FREEZE = { freeze: true };
const DEFAULT_NOW = new Date('2025-06-01T00:00:00Z');

const FORMATS = [
  { format: 'png', mime: 'image/png', weight: 50 },
  { format: 'jpg', mime: 'image/jpeg', weight: 38 },
  { format: 'gif', mime: 'image/gif', weight: 8 },
  { format: 'svg', mime: 'image/svg+xml', weight: 3 },
  { format: 'webm', mime: 'video/webm', weight: 1 },
] as const;

const RATING_WEIGHTS = [60, 15, 8, 8, 4, 3, 2];

/**
 * The tag vocabulary by rank (most used first): the rating tags, the demo's words, then invented
 * names (some artists and OCs) up to `count`. Aliases come after and are never used on images.
 */
export function bulkTagNames(count: number, seed: number): { used: string[]; aliases: Array<[string, string]> } {
  const rng = Random.stream(seed, 'bulk-tags');
  const seen = new Set<string>();
  const used: string[] = [];
  const add = (name: string): boolean => {
    const clean = cleanTagName(name);
    if (clean === '' || seen.has(clean) || Buffer.byteLength(clean) > 255) return false;
    seen.add(clean);
    used.push(clean);
    return true;
  };
  for (const r of RATING_TAGS) add(r);
  for (const list of [GENERAL.slice(0, 12), CHARACTERS.slice(0, 8), SPECIES, GENERAL.slice(12), CHARACTERS.slice(8), BODY_TYPES, ERROR_TAGS, OFFICIAL_CONTENT, ['oc']]) {
    for (const name of list) add(name);
  }
  let serial = 0;
  while (used.length < count) {
    const r = rng.float();
    const base = r < 0.15 ? `artist:${inventName(rng, '_')}` : r < 0.2 ? `oc:${inventName(rng)}` : r < 0.22 ? `comic:${inventName(rng)}` : inventName(rng);
    if (!add(base)) add(`${base} ${++serial}`);
  }
  used.length = Math.max(count, RATING_TAGS.length);
  const aliases: Array<[string, string]> = [];
  for (const [alias, target] of ALIASES) {
    const a = cleanTagName(alias);
    const t = cleanTagName(target);
    if (!seen.has(a) && seen.has(t)) {
      seen.add(a);
      aliases.push([a, t]);
    }
  }
  return { used, aliases };
}

/** Whether an image of the bulk board is hidden (deleted): about one in 500. */
function isHidden(seed: number, id: number): boolean {
  return mixSeed(seed ^ 0x48494445, id) % 500 === 0;
}

/**
 * The postgres.js connection a Drizzle transaction runs on, for COPY (which Drizzle does not
 * expose). Drizzle's postgres-js session keeps it as `session.client`.
 */
function transactionClient(tx: Transaction): Sql {
  const client = (tx as unknown as { session?: { client?: Sql } }).session?.client;
  if (!client || typeof client.unsafe !== 'function') throw new Error('cannot reach the transaction connection for COPY');
  return client;
}

/** What every step of a bulk load shares. */
interface BulkPlan {
  seed: number;
  /** Images to make. */
  n: number;
  userCount: number;
  /** The board's first day; images are spread from here to the day before `options.now`. */
  start: Date;
  summary: BulkSummary;
  phases: Record<string, number>;
  imageDate: (index: number) => Date;
  progress: (p: BulkProgress) => void;
  /** Close the running phase (its time goes to `phases`) and open `name`. */
  phase: (name: BulkProgress['phase'], total: number) => void;
}

/** A bulk load inside its transaction: `sql` is the transaction's connection, for COPY. */
interface BulkLoad extends BulkPlan {
  sql: Sql;
}

/** The tag vocabulary of a bulk board: names by id (id = index + 1), aliases, and how tags are drawn. */
interface BulkTags {
  tagNames: string[];
  aliases: Array<[string, string]>;
  tagIdOf: Map<string, number>;
  ratingIds: number[];
  /** Everything after the ratings is drawn with a Zipf law over its rank. */
  zipf: Zipf;
}

/** Counts of each image's votes and faves, by image id. */
interface VoteCounts {
  ups: Uint8Array;
  downs: Uint8Array;
  faves: Uint8Array;
}

/**
 * Load a benchmark board. Refuses a non-empty board unless `force` (which empties it first, in the
 * same transaction).
 */
export async function seedBulkBoard(db: Database, options: BulkOptions): Promise<BulkSummary> {
  const started = Date.now();
  const plan = planBulkLoad(options);
  if (!options.force && !(await isBoardEmpty(db))) throw new Error('the board is not empty (use --force to replace it)');
  // Files first (outside the transaction: they take long and are harmless if the load fails).
  const facts = options.withFiles ? await makeBulkFiles(plan, options) : undefined;
  plan.phase('prepare', 1);
  const vocabulary = bulkTags(Math.max(options.tags ?? 200_000, 400), plan.seed);
  plan.summary.tags = vocabulary.tagNames.length + vocabulary.aliases.length;

  await db.transaction(async (tx) => {
    const sql = transactionClient(tx);
    await skipOutbox(tx);
    await tx.execute(drizzleSql`select set_config('maintenance_work_mem', '512MB', true)`);
    await tx.execute(drizzleSql`select set_config('synchronous_commit', 'off', true)`);
    if (options.force) await truncateBoard(tx);
    else if (!(await isBoardEmpty(tx))) throw new Error('the board is not empty (use --force to replace it)');
    const restore = await setAsideConstraints(sql, LOADED_TABLES);
    // Emptying the loaded tables in this transaction (they are empty already; with their foreign
    // keys set aside nothing else is touched) lets COPY write rows frozen, so the new board needs
    // no vacuum pass to be fast to read.
    await sql.unsafe(`truncate ${LOADED_TABLES.map((t) => `"${t}"`).join(', ')}`);
    const load: BulkLoad = { ...plan, sql };
    const votes = await copyInteractions(load);
    const uploads = await copyImages(load, facts, votes);
    const tagCounts = await copyTaggings(load, vocabulary);
    await copySources(load);
    await copyTags(load, vocabulary, tagCounts);
    await copyUsersAndFilters(load, uploads, vocabulary.tagIdOf);
    await rebuildIndexes(load, restore);
    await resetSequences(tx);
  });
  plan.phase('done', 1);
  plan.summary.ms = Date.now() - started;
  return plan.summary;
}

/** The load's sizes, dates and progress reporting, from its options. */
function planBulkLoad(options: BulkOptions): BulkPlan {
  const n = Math.max(0, Math.floor(options.images));
  const userCount = Math.max(options.users ?? 50, 5);
  const end = options.now ?? DEFAULT_NOW;
  const start = new Date(end.getTime() - 10 * 365 * DAY);
  const progress = options.onProgress ?? (() => {});
  const phases: Record<string, number> = {};
  let phaseStart = Date.now();
  let phaseName: BulkProgress['phase'] | undefined;
  const phase = (name: BulkProgress['phase'], total: number) => {
    const now = Date.now();
    if (phaseName) phases[phaseName] = now - phaseStart;
    phaseName = name;
    phaseStart = now;
    progress({ phase: name, done: 0, total });
  };
  const imageDate = (index: number): Date =>
    new Date(start.getTime() + Math.floor(((index + 0.5) / Math.max(n, 1)) * (end.getTime() - DAY - start.getTime())));
  const summary: BulkSummary = { images: n, tags: 0, taggings: 0, users: userCount, faves: 0, votes: 0, sources: 0, ms: 0, phases };
  return { seed: options.seed ?? 1, n, userCount, start, summary, phases, imageDate, progress, phase };
}

/** The board's tag vocabulary: at least `count` names, their ids, and the draw over them. */
function bulkTags(count: number, seed: number): BulkTags {
  const { used: tagNames, aliases } = bulkTagNames(count, seed);
  const tagIdOf = new Map<string, number>(tagNames.map((name, i) => [name, i + 1]));
  const ratingIds = RATING_TAGS.map((r) => tagIdOf.get(r)!);
  return { tagNames, aliases, tagIdOf, ratingIds, zipf: new Zipf(tagNames.length - RATING_TAGS.length, 1.0, 2.5) };
}

/** When the bulk board's tags (and system filters) were made: a month before its first image. */
function tagsCreatedAt(start: Date): string {
  return new Date(start.getTime() - 30 * DAY).toISOString();
}

/** Image files in storage for every image, with the facts their rows take from them. */
async function makeBulkFiles(plan: BulkPlan, options: BulkOptions): Promise<ImageFileFacts[]> {
  const { seed, n, imageDate, progress, phase } = plan;
  if (!options.storage) throw new Error('withFiles needs storage');
  const stores = fileStoresOf(options.storage);
  phase('files', n);
  let done = 0;
  const kinds = ['png', 'jpeg', 'gif', 'svg'] as const;
  const kr = Random.stream(seed, 'bulk-kinds');
  const specs = Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    createdAt: imageDate(i),
    kind: kr.weighted(kinds, [55, 36, 3, 6]),
    seed: mixSeed(seed, 0x3000_0000 + i + 1),
  }));
  return await mapLimit(specs, options.concurrency ?? 2, async (spec) => {
    const f = await makeImageFiles(stores.images, spec);
    progress({ phase: 'files', done: ++done, total: n });
    return f;
  });
}


/** Votes and faves. Sparse: about one image in eight has votes; faves are a subset of the upvotes. */
async function copyInteractions(load: BulkLoad): Promise<VoteCounts> {
  const { seed, n, userCount, sql, summary, imageDate, progress, phase } = load;
  phase('interactions', n);
  const ups = new Uint8Array(n + 1);
  const downs = new Uint8Array(n + 1);
  const faves = new Uint8Array(n + 1);
  const ir = Random.stream(seed, 'bulk-interactions');
  const userOrder = Array.from({ length: userCount }, (_, i) => i + 1);
  const faveWriter = await copyInto(sql, 'image_faves', ['image_id', 'user_id', 'created_at'], FREEZE);
  const voteLines: string[] = [];
  for (let id = 1; id <= n; id++) {
    if (id % 10_000 === 0) progress({ phase: 'interactions', done: id, total: n });
    if (ir.float() >= 0.125) continue;
    const at = new Date(imageDate(id - 1).getTime() + ir.int(60_000, 30 * DAY));
    const voters = Math.min(userCount, 1 + Math.floor(-Math.log(1 - ir.float()) * 3));
    // Partial Fisher–Yates: distinct voters.
    for (let k = 0; k < voters; k++) {
      const j = k + Math.floor(ir.float() * (userCount - k));
      [userOrder[k], userOrder[j]] = [userOrder[j]!, userOrder[k]!];
      const userId = userOrder[k]!;
      const up = ir.float() < 0.85;
      voteLines.push(`${id}\t${userId}\t${up ? 't' : 'f'}\t${at.toISOString()}\n`);
      if (up) {
        ups[id]!++;
        if (ir.float() < 0.4) {
          faves[id]!++;
          if (faveWriter.push(`${id}\t${userId}\t${at.toISOString()}\n`)) await faveWriter.flush();
        }
      } else {
        downs[id]!++;
      }
    }
  }
  await faveWriter.end();
  summary.faves = faveWriter.rows;
  const voteWriter = await copyInto(sql, 'image_votes', ['image_id', 'user_id', 'up', 'created_at'], FREEZE);
  for (const line of voteLines) if (voteWriter.push(line)) await voteWriter.flush();
  await voteWriter.end();
  summary.votes = voteWriter.rows;
  voteLines.length = 0;
  return { ups, downs, faves };
}

/** Image rows (file facts from `facts` when files were made). Returns the uploads of each user. */
async function copyImages(load: BulkLoad, facts: ImageFileFacts[] | undefined, votes: VoteCounts): Promise<Int32Array> {
  const { seed, n, userCount, sql, imageDate, progress, phase } = load;
  const { ups, downs, faves } = votes;
  phase('images', n);
  const uploads = new Int32Array(userCount + 1);
  const mr = Random.stream(seed, 'bulk-images');
  const formatWeights = FORMATS.map((f) => f.weight);
  const images = await copyInto(sql, 'images', [
    'id', 'user_id', 'anonymous', 'image_name', 'image_width', 'image_height', 'image_size', 'image_orig_size',
    'image_format', 'image_mime_type', 'image_aspect_ratio', 'image_duration', 'is_animated', 'image_sha512_hash',
    'image_orig_sha512_hash', 'storage_key', 'description', 'score', 'upvotes_count', 'downvotes_count', 'faves_count',
    'approved', 'hidden_from_users', 'deletion_reason', 'processed', 'thumbnails_generated', 'duplication_checked',
    'first_seen_at', 'created_at', 'updated_at',
  ], FREEZE);
  for (let id = 1; id <= n; id++) {
    const createdAt = imageDate(id - 1).toISOString();
    const userId = mr.float() < 0.85 ? 1 + Math.floor(Math.pow(mr.float(), 2) * userCount) : null;
    if (userId !== null) uploads[userId]!++;
    const anonymous = userId !== null && mr.float() < 0.05;
    const f = facts?.[id - 1];
    let width: number, height: number, size: number, format: string, mime: string, duration: number, animated: boolean;
    let sha: string, origSha: string, origSize: number, storageKey: string | null;
    if (f) {
      ({ width, height, size, format, mimeType: mime, duration, animated, sha512: sha, origSha512: origSha, origSize, storageKey } = f);
    } else {
      const fmt = mr.weighted(FORMATS, formatWeights);
      format = fmt.format;
      mime = fmt.mime;
      width = mr.int(200, 4000);
      height = mr.int(200, 3000);
      size = mr.int(10_000, 8_000_000);
      origSize = size;
      animated = format === 'gif' ? mr.float() < 0.8 : format === 'webm';
      duration = animated ? Math.round(mr.float() * 300) / 10 + 0.1 : 0;
      sha = createHash('sha512').update(`bulk:${seed}:${id}`).digest('hex');
      origSha = sha;
      storageKey = null;
    }
    const hidden = isHidden(seed, id);
    const description = mr.float() < 0.2 ? mr.pick(DESCRIPTIONS) : '';
    const up = ups[id]!;
    const down = downs[id]!;
    const line =
      `${id}\t${userId ?? '\\N'}\t${anonymous ? 't' : 'f'}\t${`image_${id}.${format}`}\t${width}\t${height}\t${size}\t${origSize}\t` +
      `${format}\t${mime}\t${width / height}\t${duration}\t${animated ? 't' : 'f'}\t${sha}\t${origSha}\t${storageKey ?? '\\N'}\t` +
      `${description}\t${up - down}\t${up}\t${down}\t${faves[id]}\tt\t${hidden ? 't' : 'f'}\t${hidden ? 'Rule #1' : '\\N'}\t` +
      `t\t${f ? 't' : 'f'}\t${f ? 't' : 'f'}\t${createdAt}\t${createdAt}\t${createdAt}\n`;
    if (images.push(line)) await images.flush();
    if (id % 10_000 === 0) progress({ phase: 'images', done: id, total: n });
  }
  await images.end();
  return uploads;
}

/** Each image's tags: a rating, sometimes a second one, then tags drawn by rank. Returns the visible images of each tag. */
async function copyTaggings(load: BulkLoad, vocabulary: BulkTags): Promise<Int32Array> {
  const { seed, n, sql, summary, progress, phase } = load;
  const { tagNames, ratingIds, zipf } = vocabulary;
  const T = tagNames.length;
  phase('taggings', n);
  const tagCounts = new Int32Array(T + 1);
  const mark = new Int32Array(T + 1);
  const tr = Random.stream(seed, 'bulk-taggings');
  const taggings = await copyInto(sql, 'image_taggings', ['image_id', 'tag_id', 'position'], FREEZE);
  const comboPartners: Record<number, number[]> = { 1: [], 2: [5, 6], 3: [6], 4: [7], 5: [7], 6: [7], 7: [] };
  for (let id = 1; id <= n; id++) {
    const visible = !isHidden(seed, id);
    const k = Math.min(120, 3 + Math.floor(-Math.log(1 - tr.float()) * 22));
    const ratingIndex = tr.weightedIndex(RATING_WEIGHTS);
    let position = 0;
    let line = '';
    const put = (tagId: number) => {
      mark[tagId] = id;
      line += `${id}\t${tagId}\t${position++}\n`;
      if (visible) tagCounts[tagId]!++;
    };
    put(ratingIds[ratingIndex]!);
    const partners = comboPartners[ratingIndex + 1]!;
    if (partners.length > 0 && tr.float() < 0.05) put(ratingIds[tr.pick(partners) - 1]!);
    for (let attempts = 0; position < k && attempts < k * 4; attempts++) {
      const tagId = RATING_TAGS.length + 1 + zipf.draw(tr);
      if (mark[tagId] !== id) put(tagId);
    }
    taggings.rows += position - 1;
    if (taggings.push(line)) await taggings.flush();
    if (id % 10_000 === 0) progress({ phase: 'taggings', done: id, total: n });
  }
  await taggings.end();
  summary.taggings = taggings.rows;
  return tagCounts;
}

/** Sources of about three images in ten. */
async function copySources(load: BulkLoad): Promise<void> {
  const { seed, n, sql, summary, phase } = load;
  phase('sources', n);
  const sr = Random.stream(seed, 'bulk-sources');
  const sources = await copyInto(sql, 'image_sources', ['image_id', 'source', 'position'], FREEZE);
  for (let id = 1; id <= n; id++) {
    if (sr.float() >= 0.3) continue;
    const host = sr.pick(['www.deviantart.com', 'twitter.com', 'www.tumblr.com', 'www.pixiv.net']);
    if (sources.push(`${id}\thttps://${host}/art/${id}-${sr.int(1000, 999_999)}\t0\n`)) await sources.flush();
  }
  await sources.end();
  summary.sources = sources.rows;
}

/** Tag rows with their image counts, the aliases, and the implications among them. */
async function copyTags(load: BulkLoad, vocabulary: BulkTags, tagCounts: Int32Array): Promise<void> {
  const { start, sql, phase } = load;
  const { tagNames, aliases, tagIdOf } = vocabulary;
  const T = tagNames.length;
  phase('tags', T);
  const fixedCategory = new Map<string, string>();
  for (const [list, category] of FIXED_CATEGORIES) for (const name of list) fixedCategory.set(cleanTagName(name), category);
  const tagCreated = tagsCreatedAt(start);
  const tagRow = (id: number, name: string, aliasedTagId: number | null, imagesCount: number) => {
    const { namespace, nameInNamespace } = splitNamespace(name);
    const category = aliasedTagId === null ? (fixedCategory.get(name) ?? categoryFor(name, namespace)) : null;
    return copyLine([id, name, slugify(name), namespace, nameInNamespace, category, imagesCount, aliasedTagId, tagCreated, tagCreated]);
  };
  const tagWriter = await copyInto(sql, 'tags', [
    'id', 'name', 'slug', 'namespace', 'name_in_namespace', 'category', 'images_count', 'aliased_tag_id', 'created_at', 'updated_at',
  ], FREEZE);
  for (let i = 0; i < T; i++) if (tagWriter.push(tagRow(i + 1, tagNames[i]!, null, tagCounts[i + 1]!))) await tagWriter.flush();
  aliases.forEach(([alias, target], i) => tagWriter.push(tagRow(T + i + 1, alias, tagIdOf.get(target)!, 0)));
  await tagWriter.end();
  const implications: Array<[number, number]> = [];
  for (const [name, implied] of IMPLICATIONS) {
    const from = tagIdOf.get(cleanTagName(name));
    for (const target of implied) {
      const to = tagIdOf.get(cleanTagName(target));
      if (from !== undefined && to !== undefined) implications.push([from, to]);
    }
  }
  await copyRows(sql, 'tag_implications', ['tag_id', 'implied_tag_id'], implications);
}

/** The users (the first ones staff) and the system filters. */
async function copyUsersAndFilters(load: BulkLoad, uploads: Int32Array, tagIdOf: Map<string, number>): Promise<void> {
  const { userCount, start, sql } = load;
  const tagCreated = tagsCreatedAt(start);
  const userRows = Array.from({ length: userCount }, (_, i) => {
    const id = i + 1;
    const name = DEMO_USERS[i]?.name ?? `Bench User ${id}`;
    const role = i === 0 ? 'admin' : i === 1 ? 'moderator' : i === 2 ? 'assistant' : 'user';
    const created = new Date(start.getTime() - (userCount - i) * DAY).toISOString();
    return [id, name, slugify(name), role, uploads[id]!, 1, created, created, created];
  });
  await copyRows(sql, 'users', ['id', 'name', 'slug', 'role', 'images_count', 'current_filter_id', 'confirmed_at', 'created_at', 'updated_at'], userRows);
  await copyRows(
    sql,
    'filters',
    ['id', 'name', 'description', 'system', 'public', 'user_count', 'hidden_tag_ids', 'spoilered_tag_ids', 'created_at', 'updated_at'],
    SYSTEM_FILTERS.map((f, i) => [
      i + 1,
      f.name,
      f.description,
      true,
      false,
      i === 0 ? userCount : 0,
      `{${f.hidden.map((t) => tagIdOf.get(t)).join(',')}}`,
      `{${f.spoilered.map((t) => tagIdOf.get(t)).join(',')}}`,
      tagCreated,
      tagCreated,
    ]),
  );
}

/** Statistics, then the keys, indexes and constraints set aside for the load. */
async function rebuildIndexes(load: BulkLoad, restore: Awaited<ReturnType<typeof setAsideConstraints>>): Promise<void> {
  const { sql, progress, phase, phases } = load;
  // Statistics first: validating the foreign keys is a join, and it needs them to be planned well.
  phase('analyze', LOADED_TABLES.length);
  for (const t of LOADED_TABLES) await sql.unsafe(`analyze "${t}"`);
  phase('indexes', restore.length);
  let restored = 0;
  await restoreConstraints(sql, restore, {
    onStep: (step, ms) => {
      // The slow rebuilds are worth knowing about (they dominate large loads).
      if (ms >= 250) phases[`  ${step.statement.replace(/^(alter table \S+ add constraint "[^"]+").*$/s, '$1').replace(/ USING btree.*$/, '')}`] = ms;
      progress({ phase: 'indexes', done: ++restored, total: restore.length });
    },
  });
}
