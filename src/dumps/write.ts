/**
 * Nightly dumps of the board's public data (usage terms: "clients wanting to continuously copy
 * the whole site are directed to nightly database dumps instead of the API").
 *
 * Each resource is one gzip-compressed JSON-lines file whose records are in the import format
 * (src/import/api-json/schema.ts): the API's own JSON, made by the API's own views, plus the few
 * import-only fields a board needs to be rebuilt (a topic's forum, a post's topic and position, a
 * gallery's images and dates). So `npm run import -- DIR` turns a dump back into a board whose API
 * answers match. Rows are read in keyset batches inside one read-only REPEATABLE READ transaction:
 * every file sees the same snapshot, and memory holds one batch, whatever the board's size.
 *
 * Public data only. Never written: e-mails, API keys and their hashes, IPs, fingerprints, private
 * links, badge descriptions, users' settings (filters chosen, watched tags), votes, faves and hides
 * of each user. Left out:
 * - deactivated users; content they wrote stays, unattributed (`user_id` null, the anonymous
 *   name), and their galleries and filters are left out (both need an owner);
 * - unapproved images, and every comment on them;
 * - images hidden from users (merged or deleted) are reduced to the public stub the reference
 *   shows for them — id, times, `hidden_from_users`, `duplicate_of`, `deletion_reason` — so that a
 *   merged image still points at its target and a gallery whose cover was deleted stays whole;
 *   their comments are left out, as is their place in galleries;
 * - hidden, destroyed and unapproved comments and posts; topics hidden from users; forums whose
 *   access level is not `normal`, with their topics and posts;
 * - filters that are neither system nor public.
 * Anonymous content stays anonymous: the API view already writes `user_id: null` and the
 * "Background Pony" name, and that is what is written.
 *
 * Concurrency: a transaction-scoped advisory lock (DUMP_LOCK) makes one dump at a time across
 * every process using the database; a second one fails at once with DumpBusyError.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import {
  badgeAwards,
  badges,
  comments,
  filters,
  forums,
  galleries,
  galleryInteractions,
  imageFeatures,
  images,
  posts,
  tags,
  topics,
  userLinks,
  users,
} from '../db/schema/index.js';
import { loadImageData } from '../contexts/images/load.js';
import { renderTagRows } from '../api/tag-rows.js';

import { commentView } from '../api/views/comment.js';
import { filterView } from '../api/views/filter.js';
import { forumView } from '../api/views/forum.js';
import { galleryView } from '../api/views/gallery.js';
import { hiddenImageView, visibleImageView } from '../api/views/image.js';
import { postView } from '../api/views/post.js';
import { isPublicLink, profileView } from '../api/views/profile.js';
import { formatTime } from '../api/views/time.js';
import { topicView } from '../api/views/topic.js';
import type { Transaction } from '../db/executor.js';
import { DirectoryStorage } from '../media/storage-directory.js';
import type { MediaStorage } from '../media/storage.js';
import { JsonLinesGzipWriter, type WrittenFile } from './jsonl.js';
import {
  BOARD_FILE,
  DUMP_FORMAT,
  DUMP_FORMAT_VERSION,
  DUMP_NAME,
  DUMP_RESOURCES,
  LATEST_FILE,
  DUMP_FILES,
  MANIFEST_FILE,
  SUMS_FILE,
  TEMP_PREFIX,
  dumpName,
  listDumpNames,
  resourceFile,
  type DumpResource,
  type Latest,
  type Manifest,
  type ManifestFile,
} from './layout.js';
import type { AuthorUser } from '../contexts/users/types.js';

/** Advisory lock key of dumps ("tagw" + 3, beside the indexer's locks). */
export const DUMP_LOCK = 0x7461_6777_0003;

export const DEFAULT_KEEP = 7;
export const DEFAULT_BATCH_SIZE = 1000;

/** Another dump holds the lock (in this process or another one). */
export class DumpBusyError extends Error {
  override name = 'DumpBusyError';
  constructor() {
    super('another dump is running');
  }
}

export interface DumpProgress {
  resource: DumpResource;
  /** Records written to this resource's file so far. */
  records: number;
}

export interface WriteDumpOptions {
  /** The dumps root (normally the `dumps` area of the media storage); the dump becomes `<YYYY-MM-DD>/` in it. */
  storage: MediaStorage;
  config: Pick<Config, 'cdnUrl' | 'anonymousNameSalt' | 'siteName' | 'baseUrl'>;
  /** Dated dumps kept after this one is in place, this one included (default 7). */
  keep?: number;
  /** The dump's time (default: now); its UTC day names the directory. */
  now?: Date;
  /** Rows per query (default 1000). */
  batchSize?: number;
  /** Leave an existing dump of the same day alone and return null (default: replace it). */
  ifMissing?: boolean;
  /** Stops the dump between batches; nothing is left behind. */
  signal?: AbortSignal;
  /** Called after each batch (awaited). */
  onProgress?: (progress: DumpProgress) => void | Promise<void>;
}

export interface DumpResult {
  name: string;
  /** Where the dump is (`file:///…/dumps/2025-06-01/`, `s3://bucket/prefix/dumps/2025-06-01/`). */
  location: string;
  manifest: Manifest;
}

type Rec = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Reading the board, one resource at a time
// ---------------------------------------------------------------------------------------------

interface Reader {
  tx: Transaction;
  config: WriteDumpOptions['config'];
  /** The API's loaders take the pool; inside the dump they read through the transaction. */
  db: Database;
  batchSize: number;
}

/** Keyset pages of a query ordered by an integer key, until one comes back short. */
async function* pages<T>(load: (after: number, limit: number) => Promise<T[]>, key: (row: T) => number, limit: number): AsyncGenerator<T[]> {
  let after = 0;
  for (;;) {
    const rows = await load(after, limit);
    if (rows.length > 0) yield rows;
    if (rows.length < limit) return;
    after = key(rows[rows.length - 1]!);
  }
}

/** Names and avatars of active (not deactivated) users by id: deactivated authors are not named. */
async function activeAuthors(r: Reader, ids: Iterable<number | null>): Promise<Map<number, AuthorUser>> {
  const list = [...new Set([...ids].filter((id): id is number => id !== null))];
  if (list.length === 0) return new Map();
  const rows = await r.tx
    .select({ id: users.id, name: users.name, avatar: users.avatar })
    .from(users)
    .where(and(inArray(users.id, list), isNull(users.deletedAt)));
  return new Map(rows.map((u) => [u.id, u]));
}

const authorOf = (authors: Map<number, AuthorUser>, id: number | null) => (id === null ? null : (authors.get(id) ?? null));

async function* userRecords(r: Reader): AsyncGenerator<Rec[]> {
  const load = (after: number, limit: number) =>
    r.tx.select().from(users).where(and(isNull(users.deletedAt), gt(users.id, after))).orderBy(asc(users.id)).limit(limit);
  for await (const rows of pages(load, (u) => u.id, r.batchSize)) {
    const ids = rows.map((u) => u.id);
    const [links, awards] = await Promise.all([
      r.tx
        .select()
        .from(userLinks)
        .where(and(inArray(userLinks.userId, ids), eq(userLinks.public, true), eq(userLinks.state, 'verified')))
        .orderBy(asc(userLinks.id)),
      r.tx
        .select({ award: badgeAwards, badge: badges })
        .from(badgeAwards)
        .innerJoin(badges, eq(badges.id, badgeAwards.badgeId))
        .where(inArray(badgeAwards.userId, ids))
        .orderBy(desc(badgeAwards.awardedOn), desc(badgeAwards.id)),
    ]);
    yield rows.map((u) => {
      const view = profileView(
        r.config,
        u,
        links.filter((l) => l.userId === u.id && isPublicLink(l)),
        awards.filter((a) => a.award.userId === u.id).map((a) => ({ ...a.award, badge: a.badge })),
      );
      return { ...view } as Rec;
    });
  }
}

async function* tagRecords(r: Reader): AsyncGenerator<Rec[]> {
  const deps = { db: r.db, config: r.config };
  const load = (after: number, limit: number) => r.tx.select().from(tags).where(gt(tags.id, after)).orderBy(asc(tags.id)).limit(limit);
  for await (const rows of pages(load, (t) => t.id, r.batchSize)) {
    yield (await renderTagRows(deps, rows)) as unknown as Rec[];
  }
}

const target = alias(images, 'target');

async function* imageRecords(r: Reader): AsyncGenerator<Rec[]> {
  const load = (after: number, limit: number) =>
    r.tx
      .select({
        id: images.id,
        hidden: images.hiddenFromUsers,
        createdAt: images.createdAt,
        updatedAt: images.updatedAt,
        firstSeenAt: images.firstSeenAt,
        deletionReason: images.deletionReason,
        duplicateId: images.duplicateId,
        targetInDump: sql<boolean>`coalesce(${target.approved}, false)`,
      })
      .from(images)
      .leftJoin(target, eq(target.id, images.duplicateId))
      .where(and(eq(images.approved, true), gt(images.id, after)))
      .orderBy(asc(images.id))
      .limit(limit);
  for await (const rows of pages(load, (i) => i.id, r.batchSize)) {
    const visibleIds = rows.filter((i) => !i.hidden).map((i) => i.id);
    const data = await loadImageData(r.db, visibleIds);
    const uploaders = await activeAuthors(r, [...data.values()].map((d) => d.image.userId));
    yield rows.map((row) => {
      if (row.hidden) {
        // The public stub of a merged or deleted image; one merged into an image the dump leaves
        // out points nowhere (and, merged, has no deletion reason to show).
        const merged = row.duplicateId !== null && row.targetInDump;
        const deletionReason = row.duplicateId === null ? row.deletionReason : null;
        return { ...hiddenImageView({ ...row, duplicateId: merged ? row.duplicateId : null, deletionReason }) } as Rec;
      }
      const d = data.get(row.id)!;
      // A deactivated uploader is not named.
      const image = d.image.userId !== null && !uploaders.has(d.image.userId) ? { ...d.image, userId: null } : d.image;
      const view = visibleImageView(r.config, { ...d, image, spoilered: false });
      // The importer takes tags by id or by name, not both; `spoilered` depends on a viewer.
      const { tags: _names, spoilered: _spoilered, ...record } = view;
      return record as Rec;
    });
  }
}

async function* commentRecords(r: Reader): AsyncGenerator<Rec[]> {
  const load = (after: number, limit: number) =>
    r.tx
      .select({ comment: comments })
      .from(comments)
      .innerJoin(images, eq(images.id, comments.imageId))
      .where(
        and(
          gt(comments.id, after),
          eq(comments.approved, true),
          eq(comments.hiddenFromUsers, false),
          eq(comments.destroyedContent, false),
          eq(images.approved, true),
          eq(images.hiddenFromUsers, false),
        ),
      )
      .orderBy(asc(comments.id))
      .limit(limit);
  for await (const rows of pages(load, (c) => c.comment.id, r.batchSize)) {
    const authors = await activeAuthors(r, rows.map((c) => c.comment.userId));
    yield rows.flatMap(({ comment }) => {
      const view = commentView(r.config, { message: comment, placeHidden: false, user: authorOf(authors, comment.userId) });
      return view ? [view as unknown as Rec] : [];
    });
  }
}

const normalForum = eq(forums.accessLevel, 'normal');

async function* forumRecords(r: Reader): AsyncGenerator<Rec[]> {
  const load = (after: number, limit: number) =>
    r.tx.select().from(forums).where(and(normalForum, gt(forums.id, after))).orderBy(asc(forums.id)).limit(limit);
  for await (const rows of pages(load, (f) => f.id, r.batchSize)) yield rows.map((f) => ({ ...forumView(f) }));
}

async function* topicRecords(r: Reader): AsyncGenerator<Rec[]> {
  const load = (after: number, limit: number) =>
    r.tx
      .select({ topic: topics, forum: forums.shortName })
      .from(topics)
      .innerJoin(forums, eq(forums.id, topics.forumId))
      .where(and(gt(topics.id, after), normalForum, eq(topics.hiddenFromUsers, false)))
      .orderBy(asc(topics.id))
      .limit(limit);
  for await (const rows of pages(load, (t) => t.topic.id, r.batchSize)) {
    const authors = await activeAuthors(r, rows.map((t) => t.topic.userId));
    yield rows.map(({ topic, forum }) => ({ forum, ...topicView(r.config, topic, authorOf(authors, topic.userId)) }));
  }
}

async function* postRecords(r: Reader): AsyncGenerator<Rec[]> {
  const load = (after: number, limit: number) =>
    r.tx
      .select({ post: posts, topic: topics.slug, forum: forums.shortName })
      .from(posts)
      .innerJoin(topics, eq(topics.id, posts.topicId))
      .innerJoin(forums, eq(forums.id, topics.forumId))
      .where(
        and(
          gt(posts.id, after),
          eq(posts.approved, true),
          eq(posts.hiddenFromUsers, false),
          eq(posts.destroyedContent, false),
          eq(topics.hiddenFromUsers, false),
          normalForum,
        ),
      )
      .orderBy(asc(posts.id))
      .limit(limit);
  for await (const rows of pages(load, (p) => p.post.id, r.batchSize)) {
    const authors = await activeAuthors(r, rows.map((p) => p.post.userId));
    yield rows.flatMap(({ post, topic, forum }) => {
      const view = postView(r.config, { message: post, placeHidden: false, user: authorOf(authors, post.userId) });
      // The position keeps the topic's pages as they are (hidden posts leave gaps).
      return view ? [{ topic, forum, topic_position: post.topicPosition, ...view }] : [];
    });
  }
}

async function* galleryRecords(r: Reader): AsyncGenerator<Rec[]> {
  const load = (after: number, limit: number) =>
    r.tx
      .select({ gallery: galleries, creator: users.name })
      .from(galleries)
      .innerJoin(users, eq(users.id, galleries.creatorId))
      .innerJoin(images, eq(images.id, galleries.thumbnailId))
      .where(and(gt(galleries.id, after), isNull(users.deletedAt), eq(images.approved, true)))
      .orderBy(asc(galleries.id))
      .limit(limit);
  for await (const rows of pages(load, (g) => g.gallery.id, r.batchSize)) {
    const items = await r.tx
      .select({ galleryId: galleryInteractions.galleryId, imageId: galleryInteractions.imageId })
      .from(galleryInteractions)
      .innerJoin(images, eq(images.id, galleryInteractions.imageId))
      .where(
        and(
          inArray(galleryInteractions.galleryId, rows.map((g) => g.gallery.id)),
          eq(images.approved, true),
          eq(images.hiddenFromUsers, false),
        ),
      )
      .orderBy(asc(galleryInteractions.galleryId), asc(galleryInteractions.position), asc(galleryInteractions.imageId));
    yield rows.map(({ gallery, creator }) => ({
      ...galleryView(gallery, creator),
      image_ids: items.filter((i) => i.galleryId === gallery.id).map((i) => i.imageId),
      created_at: formatTime(gallery.createdAt),
      updated_at: formatTime(gallery.updatedAt),
    }));
  }
}

async function* filterRecords(r: Reader): AsyncGenerator<Rec[]> {
  const load = (after: number, limit: number) =>
    r.tx
      .select({ filter: filters })
      .from(filters)
      .leftJoin(users, eq(users.id, filters.userId))
      .where(
        and(
          gt(filters.id, after),
          or(eq(filters.system, true), eq(filters.public, true)),
          // A user's filter needs its owner in the dump.
          or(isNull(filters.userId), and(isNotNull(users.id), isNull(users.deletedAt))),
        ),
      )
      .orderBy(asc(filters.id))
      .limit(limit);
  for await (const rows of pages(load, (f) => f.filter.id, r.batchSize)) yield rows.map(({ filter }) => ({ ...filterView(filter) }));
}

const RECORDS: Record<DumpResource, (r: Reader) => AsyncGenerator<Rec[]>> = {
  users: userRecords,
  tags: tagRecords,
  images: imageRecords,
  comments: commentRecords,
  forums: forumRecords,
  topics: topicRecords,
  posts: postRecords,
  galleries: galleryRecords,
  filters: filterRecords,
};

/** The featured image as `/images/featured` finds it: the newest feature of a visible image. */
async function featuredImageId(tx: Transaction): Promise<number | null> {
  const [row] = await tx
    .select({ imageId: imageFeatures.imageId })
    .from(imageFeatures)
    .innerJoin(images, eq(images.id, imageFeatures.imageId))
    .where(and(eq(images.hiddenFromUsers, false), eq(images.approved, true)))
    .orderBy(desc(imageFeatures.createdAt), desc(imageFeatures.id))
    .limit(1);
  return row?.imageId ?? null;
}

// ---------------------------------------------------------------------------------------------
// Files and directories
// ---------------------------------------------------------------------------------------------

async function writeSmallFile(path: string, text: string): Promise<WrittenFile> {
  const bytes = Buffer.from(text, 'utf8');
  const handle = await open(path, 'wx');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { bytes: bytes.length, records: 1, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * Where a dump is written before it is stored: beside the dumps in a directory storage (so
 * storing it is a hard link per file), else the system's temporary directory.
 */
async function stagingDir(storage: MediaStorage, name: string): Promise<string> {
  const parent = storage instanceof DirectoryStorage ? storage.root : tmpdir();
  await mkdir(parent, { recursive: true });
  return mkdtemp(join(parent, `${TEMP_PREFIX}${name}-`));
}

/**
 * Stores the staged files of dump `name`, its manifest last: a reader finds a dump by its
 * manifest, so it sees the whole dump or none. A dump of the same day loses its manifest first.
 */
async function publish(storage: MediaStorage, name: string, staged: string): Promise<void> {
  const dump = storage.area(name);
  await dump.delete(MANIFEST_FILE);
  for (const file of [...DUMP_FILES.filter((f) => f !== MANIFEST_FILE), MANIFEST_FILE]) {
    if (existsSync(join(staged, file))) await dump.putFile(file, join(staged, file));
  }
}

/** Point `latest.json` at a dump (a storage write replaces it whole). */
async function writeLatest(root: MediaStorage, latest: Latest): Promise<void> {
  await root.put(LATEST_FILE, Buffer.from(`${JSON.stringify(latest, null, 2)}\n`));
}

/** Remove dated dumps beyond the newest `keep`, and what dead runs left in a directory storage. */
async function prune(root: MediaStorage, keep: number): Promise<void> {
  const names = await listDumpNames(root);
  for (const name of names.slice(keep)) await root.deleteTree(name);
  // Only one dump runs at a time (the lock): any temporary entry left is from a run that died.
  if (root instanceof DirectoryStorage) {
    for (const entry of await readdir(root.root).catch(() => [])) {
      if (entry.startsWith(TEMP_PREFIX)) await rm(join(root.root, entry), { recursive: true, force: true });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The dump
// ---------------------------------------------------------------------------------------------

/**
 * Write a dump of the board's public data under `options.dir`, named by the UTC day, and keep
 * the newest `keep` dumps. Throws DumpBusyError when another dump runs.
 */
export async function writeDump(db: Database, options: WriteDumpOptions): Promise<DumpResult | null> {
  const keep = options.keep ?? DEFAULT_KEEP;
  if (!Number.isInteger(keep) || keep < 1) throw new RangeError('keep must be a positive integer');
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const now = options.now ?? new Date();
  const name = dumpName(now);
  if (!DUMP_NAME.test(name)) throw new RangeError(`cannot name a dump for ${now.toISOString()}`);
  const root = options.storage;
  options.signal?.throwIfAborted();

  return db.transaction(
    async (tx) => {
      const [lock] = await tx.execute<{ ok: boolean }>(sql`select pg_try_advisory_xact_lock(${DUMP_LOCK}::bigint) as ok`);
      if (lock?.ok !== true) throw new DumpBusyError();
      if (options.ifMissing && (await root.exists(`${name}/${MANIFEST_FILE}`))) return null;

      const temp = await stagingDir(root, name);
      let current: JsonLinesGzipWriter | undefined;
      try {
        const reader: Reader = { tx, db: tx as unknown as Database, config: options.config, batchSize };
        const files: ManifestFile[] = [];
        for (const resource of DUMP_RESOURCES) {
          const file = resourceFile(resource);
          const writer = (current = new JsonLinesGzipWriter(join(temp, file)));
          let records = 0;
          for await (const batch of RECORDS[resource](reader)) {
            options.signal?.throwIfAborted();
            await writer.write(batch);
            records += batch.length;
            await options.onProgress?.({ resource, records });
          }
          current = undefined;
          files.push({ name: file, resource, ...(await writer.close()) });
        }

        const board = {
          format: DUMP_FORMAT,
          version: DUMP_FORMAT_VERSION,
          featured_image_id: await featuredImageId(tx),
          dumped_at: formatTime(now),
        };
        files.push({ name: BOARD_FILE, resource: 'board', ...(await writeSmallFile(join(temp, BOARD_FILE), `${JSON.stringify(board, null, 2)}\n`)) });

        const manifest: Manifest = {
          format: DUMP_FORMAT,
          version: DUMP_FORMAT_VERSION,
          name,
          created_at: formatTime(now),
          site_name: options.config.siteName,
          base_url: options.config.baseUrl,
          files,
        };
        const written = await writeSmallFile(join(temp, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
        const sums = [...files.map((f) => `${f.sha256}  ${f.name}`), `${written.sha256}  ${MANIFEST_FILE}`].join('\n');
        await writeSmallFile(join(temp, SUMS_FILE), `${sums}\n`);
        options.signal?.throwIfAborted();

        await publish(root, name, temp);
        const newest = (await listDumpNames(root))[0];
        if (newest === name) await writeLatest(root, { name, created_at: formatTime(now) });
        await prune(root, keep);
        return { name, location: root.area(name).location, manifest };
      } catch (err) {
        current?.abort();
        throw err;
      } finally {
        await rm(temp, { recursive: true, force: true });
      }
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}
