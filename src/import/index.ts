/**
 * Importing a board written in the API's own shapes (see schema.ts), keeping ids.
 *
 * Every record is validated (shape, then references between records and to rows already in the
 * database) before anything is written; a file with any problem writes nothing and every problem
 * is reported as `<resource> <key>: <problem>`. Writes happen in one transaction. Rows are
 * upserted by id (forums by short name, topics by forum and slug) and only when they differ, so
 * importing the same file twice changes nothing the second time.
 *
 * Counters (scores, counts) are taken from the file as the API showed them. Image files named by
 * `file` are analysed and stored with every representation, like an upload.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, resolve } from 'node:path';
import { and, desc, eq, inArray, or, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { cleanTagName, slugify, splitNamespace } from '../../grammar/tag-name.js';
import { complexProblem } from '../admin/complex.js';
import type { Database } from '../db/client.js';
import {
  apiKeys,
  badgeAwards,
  badges,
  comments,
  dnpEntries,
  filters,
  forums,
  galleries,
  galleryInteractions,
  imageFeatures,
  imageIntensities,
  imageSources,
  imageTaggings,
  images,
  posts,
  tagImplications,
  tags,
  topics,
  userLinks,
  users,
  type Role,
} from '../db/schema/index.js';
import { isMediaError } from '../media/errors.js';
import { processImage } from '../media/process.js';
import type { FileStore } from '../media/storage.js';
import { resetSequences } from '../seed/common.js';
import { aliasSetProblems } from '../tags/aliases.js';
import { categoryFor } from '../tags/categories.js';
import type { Transaction } from '../tags/db.js';
import { getOrCreateTags } from '../tags/get-or-create.js';
import { hashApiKey } from '../users/api-keys.js';
import { parseBoard, type ImageRecord, type ParsedBoard, type ResourceName } from './schema.js';

export { parseBoard } from './schema.js';

/** The file was refused; `problems` lists every reason, one per line. */
export class ImportError extends Error {
  override name = 'ImportError';
  constructor(readonly problems: string[]) {
    super(`the board was not imported: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n${problems.join('\n')}`);
  }
}

export interface ImportOptions {
  /** Where image files go; needed when any image names a `file`. */
  fileStore?: FileStore;
  /** Directory that relative `file` paths are resolved against (default: the working directory). */
  baseDir?: string;
}

export interface ImportSummary {
  /** Rows inserted, updated and left as they were, per table. */
  inserted: Record<string, number>;
  updated: Record<string, number>;
  unchanged: Record<string, number>;
  /** Image files processed and written (0 when every stored file was already up to date). */
  filesWritten: number;
}

/** What the importer needs of a processed image file. */
interface FileFacts {
  format: (typeof images.$inferInsert)['imageFormat'];
  mimeType: (typeof images.$inferInsert)['imageMimeType'];
  width: number;
  height: number;
  size: number;
  origSize: number;
  aspectRatio: number;
  duration: number;
  animated: boolean;
  sha512: string;
  origSha512: string;
  /** Corner intensities, when the file was processed (null when the stored one was kept). */
  intensities: { nw: number; ne: number; sw: number; se: number } | null;
  storageKey: string;
  name: string;
  /** Bytes still to write (null when the stored file is already this one). */
  pending: Array<{ key: string; buffer: Buffer }> | null;
}

// ---------------------------------------------------------------------------------------------
// Comparing and upserting rows
// ---------------------------------------------------------------------------------------------

function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  }
  return a === b || (a == null && b == null);
}

function differs(existing: Record<string, unknown>, desired: Record<string, unknown>): boolean {
  return Object.keys(desired).some((k) => !same(existing[k], desired[k]));
}

class Tally {
  inserted: Record<string, number> = {};
  updated: Record<string, number> = {};
  unchanged: Record<string, number> = {};
  add(kind: 'inserted' | 'updated' | 'unchanged', table: string, n = 1) {
    if (n === 0) return;
    const value = (this[kind][table] ?? 0) + n;
    if (value === 0) delete this[kind][table];
    else this[kind][table] = value;
  }
}

/**
 * Insert the rows whose key is new, update the ones that differ (only the given columns), leave
 * identical ones alone.
 */
async function upsertById<T extends PgTable>(
  tx: Transaction,
  table: T,
  idColumn: PgColumn,
  idKey: string,
  rows: Array<T['$inferInsert']>,
  tally: Tally,
  label: string,
): Promise<Set<unknown>> {
  const unchanged = new Set<unknown>();
  if (rows.length === 0) return unchanged;
  const ids = rows.map((r) => (r as Record<string, unknown>)[idKey]);
  const existing = new Map<unknown, Record<string, unknown>>();
  for (let i = 0; i < ids.length; i += 1000) {
    const chunk = ids.slice(i, i + 1000);
    const found = (await tx.select().from(table as PgTable).where(inArray(idColumn, chunk))) as Array<Record<string, unknown>>;
    for (const row of found) existing.set(row[idKey], row);
  }
  const fresh: Array<T['$inferInsert']> = [];
  for (const row of rows) {
    const key = (row as Record<string, unknown>)[idKey];
    const old = existing.get(key);
    if (!old) fresh.push(row);
    else if (differs(old, row as Record<string, unknown>)) {
      await tx.update(table).set(row as never).where(eq(idColumn, key));
      tally.add('updated', label);
    } else {
      tally.add('unchanged', label);
      unchanged.add(key);
    }
  }
  for (let i = 0; i < fresh.length; i += 500) await tx.insert(table).values(fresh.slice(i, i + 500) as never);
  tally.add('inserted', label, fresh.length);
  return unchanged;
}

/**
 * Make the child rows of some parents exactly `desired`: delete the others, insert the missing,
 * update the ones whose other columns differ. `key` identifies a child within its parent.
 */
async function syncChildren<R extends Record<string, unknown>>(
  tx: Transaction,
  spec: {
    table: PgTable;
    parentColumn: PgColumn;
    parentKey: string;
    key: (row: R) => string;
    where: (row: R) => ReturnType<typeof and>;
    label: string;
  },
  parentIds: readonly number[],
  desired: R[],
  tally: Tally,
): Promise<void> {
  if (parentIds.length === 0) return;
  const existing = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < parentIds.length; i += 1000) {
    const found = (await tx.select().from(spec.table).where(inArray(spec.parentColumn, parentIds.slice(i, i + 1000)))) as R[];
    for (const row of found) existing.set(`${row[spec.parentKey]}|${spec.key(row)}`, row);
  }
  const wanted = new Set<string>();
  const fresh: R[] = [];
  for (const row of desired) {
    const k = `${row[spec.parentKey]}|${spec.key(row)}`;
    wanted.add(k);
    const old = existing.get(k);
    if (!old) fresh.push(row);
    else if (differs(old, row)) {
      await tx.update(spec.table).set(row as never).where(spec.where(row));
      tally.add('updated', spec.label);
    } else tally.add('unchanged', spec.label);
  }
  for (const [k, old] of existing) {
    if (!wanted.has(k)) {
      await tx.delete(spec.table).where(spec.where(old as R));
      tally.add('updated', spec.label);
    }
  }
  for (let i = 0; i < fresh.length; i += 500) await tx.insert(spec.table).values(fresh.slice(i, i + 500) as never);
  tally.add('inserted', spec.label, fresh.length);
}

// ---------------------------------------------------------------------------------------------
// Validation of references
// ---------------------------------------------------------------------------------------------

/** The path part of a URL after a root segment (`…/badge-img/x.svg` → `x.svg`), else its last segment. */
function assetKey(url: string, root: string): string {
  const path = url.replace(/^[a-z]+:\/\/[^/]+/i, '').split(/[?#]/)[0] ?? '';
  const at = path.indexOf(`/${root}/`);
  if (at >= 0) return path.slice(at + root.length + 2);
  return basename(path);
}

async function existingIds(db: Database, table: PgTable, column: PgColumn, ids: Iterable<number>): Promise<Set<number>> {
  const list = [...new Set(ids)];
  const out = new Set<number>();
  for (let i = 0; i < list.length; i += 5000) {
    const rows = (await db.select({ id: column }).from(table).where(inArray(column, list.slice(i, i + 5000)))) as Array<{ id: number }>;
    for (const r of rows) out.add(r.id);
  }
  return out;
}

function duplicates<T>(items: T[], key: (t: T) => string | number): Set<string | number> {
  const seen = new Set<string | number>();
  const dup = new Set<string | number>();
  for (const item of items) {
    const k = key(item);
    if (seen.has(k)) dup.add(k);
    seen.add(k);
  }
  return dup;
}

interface Resolved {
  /** Tag id of every slug known (file, then database). */
  tagIdBySlug: Map<string, number>;
  /** Topic ids keyed by `forum/slug` (file topics get their id assigned later). */
  topicKeys: Map<string, { forum: string; slug: string }>;
  files: Map<number, FileFacts>;
}

async function analyseFile(store: FileStore | undefined, baseDir: string, img: ImageRecord, existing: typeof images.$inferSelect | undefined): Promise<FileFacts> {
  const path = isAbsolute(img.file!) ? img.file! : resolve(baseDir, img.file!);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new Error(`file: cannot read ${img.file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (!store) throw new Error('file: no image store was given to the importer');
  const origSha = createHash('sha512').update(bytes).digest('hex');
  const name = img.name ?? basename(path);
  // Already imported and stored: reuse what the database knows instead of processing again.
  if (existing && existing.imageOrigSha512Hash === origSha && existing.storageKey && (await store.exists(existing.storageKey))) {
    return {
      format: existing.imageFormat,
      mimeType: existing.imageMimeType,
      width: existing.imageWidth,
      height: existing.imageHeight,
      size: existing.imageSize,
      origSize: existing.imageOrigSize,
      aspectRatio: existing.imageAspectRatio,
      duration: existing.imageDuration,
      animated: existing.isAnimated,
      sha512: existing.imageSha512Hash,
      origSha512: origSha,
      intensities: null,
      storageKey: existing.storageKey,
      name,
      pending: null,
    };
  }
  let processed;
  try {
    processed = await processImage(bytes);
  } catch (err) {
    if (isMediaError(err)) throw new Error(`file: ${err.message}`);
    throw err;
  }
  const { analysis, representations, intensities } = processed;
  const pending = representations.map((r) => ({ key: store.pathFor(img.created_at, img.id, r.name, r.ext), buffer: r.buffer }));
  const storageKey = store.pathFor(img.created_at, img.id, 'full', analysis.format);
  if (!pending.some((p) => p.key === storageKey)) pending.unshift({ key: storageKey, buffer: bytes });
  return {
    format: analysis.format,
    mimeType: analysis.mimeType,
    width: processed.processed.width,
    height: processed.processed.height,
    size: processed.processed.size,
    origSize: analysis.size,
    aspectRatio: processed.processed.width / processed.processed.height,
    duration: analysis.duration,
    animated: analysis.animated,
    sha512: processed.processed.sha512,
    origSha512: analysis.sha512,
    intensities,
    storageKey,
    name,
    pending,
  };
}

/** Check every reference of a parsed board against itself and the database. */
async function checkReferences(
  db: Database,
  board: ParsedBoard,
  keys: Record<ResourceName, Set<string>>,
  options: ImportOptions,
): Promise<{ problems: string[]; resolved: Resolved }> {
  const problems: string[] = [];
  // Records that failed their own checks still count as present: they are reported once.
  const invalid = (resource: ResourceName, parsed: ReadonlyArray<{ id?: number }>) => {
    const valid = new Set(parsed.map((r) => String(r.id)));
    return new Set([...keys[resource]].filter((k) => !valid.has(k) && /^\d+$/.test(k)).map(Number));
  };
  const invalidUsers = invalid('users', board.users);
  const invalidTags = invalid('tags', board.tags);
  const invalidImages = invalid('images', board.images);
  const say = (resource: string, key: string | number, problem: string) => problems.push(`${resource} ${key}: ${problem}`);

  for (const [name, list] of [['user', board.users], ['tag', board.tags], ['image', board.images], ['comment', board.comments],
    ['post', board.posts], ['gallery', board.galleries], ['filter', board.filters]] as const) {
    for (const dup of duplicates(list as Array<{ id: number }>, (r) => r.id)) say(name, dup, 'appears more than once');
  }
  for (const dup of duplicates(board.forums, (f) => f.short_name)) say('forum', dup, 'appears more than once');
  for (const dup of duplicates(board.topics, (t) => `${t.forum}/${t.slug}`)) say('topic', dup, 'appears more than once');

  // --- users
  const fileUserIds = new Set(board.users.map((u) => u.id));
  const referencedUsers = [
    ...board.images.map((i) => i.uploader_id), ...board.comments.map((c) => c.user_id), ...board.topics.map((t) => t.user_id),
    ...board.posts.map((p) => p.user_id), ...board.galleries.map((g) => g.user_id ?? g.creator_id), ...board.filters.map((f) => f.user_id),
  ].filter((x): x is number => typeof x === 'number' && !fileUserIds.has(x));
  const dbUsers = await existingIds(db, users, users.id, referencedUsers);
  const userExists = (id: number | null | undefined) => id == null || fileUserIds.has(id) || dbUsers.has(id) || invalidUsers.has(id);
  const lowerNames = new Map<string, number>();
  for (const u of board.users) {
    const key = u.name.toLowerCase();
    if (lowerNames.has(key) && lowerNames.get(key) !== u.id) say('user', u.id, `name ${JSON.stringify(u.name)} is also used by user ${lowerNames.get(key)}`);
    lowerNames.set(key, u.id);
  }
  if (board.users.length > 0) {
    const clash = await db
      .select({ id: users.id, name: users.name, slug: users.slug })
      .from(users)
      .where(or(inArray(sql`lower(${users.name})`, board.users.map((u) => u.name.toLowerCase())), inArray(users.slug, board.users.map((u) => u.slug ?? slugify(u.name)))));
    for (const row of clash) {
      const mine = board.users.find((u) => u.name.toLowerCase() === row.name.toLowerCase() || (u.slug ?? slugify(u.name)) === row.slug);
      if (mine && mine.id !== row.id) say('user', mine.id, `name or slug already belongs to user ${row.id} (${row.name})`);
    }
    const keys = board.users.flatMap((u) => (u.api_key === undefined ? [] : (Array.isArray(u.api_key) ? u.api_key : [u.api_key]).map((k) => ({ user: u.id, hash: hashApiKey(k) }))));
    for (const dup of duplicates(keys, (k) => k.hash)) say('user', keys.find((k) => k.hash === dup)!.user, 'api_key is used twice');
    if (keys.length > 0) {
      const taken = await db.select({ hash: apiKeys.keyHash, userId: apiKeys.userId }).from(apiKeys).where(inArray(apiKeys.keyHash, keys.map((k) => k.hash)));
      for (const t of taken) {
        const k = keys.find((x) => x.hash === t.hash)!;
        if (k.user !== t.userId) say('user', k.user, `api_key already belongs to user ${t.userId}`);
      }
    }
  }

  // --- tags
  const tagIdBySlug = new Map<string, number>();
  const fileTagIds = new Set(board.tags.map((t) => t.id));
  for (const t of board.tags) {
    const clean = cleanTagName(t.name);
    if (clean !== t.name) say('tag', t.id, `name ${JSON.stringify(t.name)} is not clean (it would be ${JSON.stringify(clean)})`);
    const slug = slugify(t.name);
    if (t.slug !== undefined && t.slug !== slug) say('tag', t.id, `slug must be ${JSON.stringify(slug)}`);
    const { namespace, nameInNamespace } = splitNamespace(t.name);
    if (t.namespace !== undefined && (t.namespace ?? null) !== namespace) say('tag', t.id, `namespace must be ${JSON.stringify(namespace)}`);
    if (t.name_in_namespace !== undefined && t.name_in_namespace !== nameInNamespace) say('tag', t.id, `name_in_namespace must be ${JSON.stringify(nameInNamespace)}`);
    if (tagIdBySlug.has(slug)) say('tag', t.id, `slug ${slug} is also used by tag ${tagIdBySlug.get(slug)}`);
    tagIdBySlug.set(slug, t.id);
  }
  if (board.tags.length > 0) {
    const clash = await db
      .select({ id: tags.id, name: tags.name, slug: tags.slug })
      .from(tags)
      .where(inArray(tags.slug, [...tagIdBySlug.keys()]));
    for (const row of clash) {
      const mine = tagIdBySlug.get(row.slug)!;
      if (mine !== row.id) say('tag', mine, `slug ${row.slug} already belongs to tag ${row.id}`);
    }
  }
  const slugRefs = board.tags.flatMap((t) => [t.aliased_tag, ...t.aliases, ...t.implied_tags, ...t.implied_by_tags]).filter((s): s is string => !!s && !tagIdBySlug.has(s));
  if (slugRefs.length > 0) {
    for (const row of await db.select({ id: tags.id, slug: tags.slug }).from(tags).where(inArray(tags.slug, [...new Set(slugRefs)]))) {
      if (!fileTagIds.has(row.id)) tagIdBySlug.set(row.slug, row.id);
    }
  }
  const aliasCandidates = board.tags.map((t) => ({ id: t.id, name: t.name, aliasedTagId: t.aliased_tag ? (tagIdBySlug.get(t.aliased_tag) ?? -1) : null }));
  const fileBySlug = new Map(board.tags.map((t) => [slugify(t.name), t]));
  for (const t of board.tags) {
    for (const s of [t.aliased_tag, ...t.aliases, ...t.implied_tags, ...t.implied_by_tags]) {
      if (s && !tagIdBySlug.has(s)) say('tag', t.id, `refers to unknown tag ${s}`);
    }
    for (const s of t.aliases) {
      const other = fileBySlug.get(s);
      if (other && other.aliased_tag !== slugify(t.name)) say('tag', t.id, `lists alias ${s}, whose aliased_tag is ${JSON.stringify(other.aliased_tag)}`);
    }
    for (const s of t.implied_tags) {
      const other = fileBySlug.get(s);
      if (other && !other.implied_by_tags.includes(slugify(t.name))) say('tag', t.id, `implies ${s}, which does not list it in implied_by_tags`);
    }
    for (const s of t.implied_by_tags) {
      const other = fileBySlug.get(s);
      if (other && !other.implied_tags.includes(slugify(t.name))) say('tag', t.id, `is implied by ${s}, which does not list it in implied_tags`);
    }
    if (t.implied_tags.includes(slugify(t.name))) say('tag', t.id, 'implies itself');
  }
  // Alias rules over the file's tags plus the database tags they point at.
  const outside = aliasCandidates.flatMap((a) => (a.aliasedTagId !== null && a.aliasedTagId > 0 && !fileTagIds.has(a.aliasedTagId) ? [a.aliasedTagId] : []));
  const outsideRows = outside.length ? await db.select({ id: tags.id, name: tags.name, aliasedTagId: tags.aliasedTagId }).from(tags).where(inArray(tags.id, outside)) : [];
  for (const [tagId, problem] of aliasSetProblems([...aliasCandidates.filter((a) => a.aliasedTagId !== -1), ...outsideRows])) {
    if (fileTagIds.has(tagId)) say('tag', tagId, problem);
  }

  // --- images
  const fileImageIds = new Set(board.images.map((i) => i.id));
  const imageRefs = [
    ...board.images.map((i) => i.duplicate_of), ...board.comments.map((c) => c.image_id),
    ...board.galleries.flatMap((g) => [g.thumbnail_id, ...g.image_ids]), board.featuredImageId,
  ].filter((x): x is number => typeof x === 'number' && !fileImageIds.has(x));
  const dbImages = await existingIds(db, images, images.id, imageRefs);
  const imageExists = (id: number) => fileImageIds.has(id) || dbImages.has(id) || invalidImages.has(id);
  const tagRefs = [...board.images.flatMap((i) => i.tag_ids ?? []), ...board.filters.flatMap((f) => [...f.hidden_tag_ids, ...f.spoilered_tag_ids])].filter((x) => !fileTagIds.has(x));
  const dbTags = await existingIds(db, tags, tags.id, tagRefs);
  const tagExists = (id: number) => fileTagIds.has(id) || dbTags.has(id) || invalidTags.has(id);
  const aliasedInFile = new Set(board.tags.filter((t) => t.aliased_tag).map((t) => t.id));
  const existingImages = new Map<number, typeof images.$inferSelect>();
  const withFiles = board.images.filter((i) => i.file !== undefined);
  if (withFiles.length > 0) {
    for (const row of await db.select().from(images).where(inArray(images.id, withFiles.map((i) => i.id)))) existingImages.set(row.id, row);
  }
  const files = new Map<number, FileFacts>();
  for (const img of board.images) {
    if (!userExists(img.uploader_id)) say('image', img.id, `uploader_id ${img.uploader_id} is not a known user`);
    if (img.duplicate_of !== null && !imageExists(img.duplicate_of)) say('image', img.id, `duplicate_of ${img.duplicate_of} is not a known image`);
    if (img.tag_ids !== undefined && img.tags !== undefined) say('image', img.id, 'give tag_ids or tags, not both');
    for (const t of img.tag_ids ?? []) {
      if (!tagExists(t)) say('image', img.id, `tag_ids: unknown tag ${t}`);
      else if (aliasedInFile.has(t)) say('image', img.id, `tag_ids: tag ${t} is an alias; use its target`);
    }
    if (img.tag_ids && new Set(img.tag_ids).size !== img.tag_ids.length) say('image', img.id, 'tag_ids lists a tag twice');
    const tagCount = img.tag_ids?.length ?? img.tags?.length;
    if (img.tag_count !== undefined && tagCount !== undefined && img.tag_count !== tagCount) say('image', img.id, `tag_count is ${img.tag_count} but ${tagCount} tags are given`);
    if (img.file !== undefined) {
      try {
        files.set(img.id, await analyseFile(options.fileStore, options.baseDir ?? process.cwd(), img, existingImages.get(img.id)));
      } catch (err) {
        say('image', img.id, (err as Error).message);
      }
    }
  }
  if (board.featuredImageId != null && !imageExists(board.featuredImageId)) problems.push(`board: featured_image_id ${board.featuredImageId} is not a known image`);

  // --- comments
  for (const c of board.comments) {
    if (!imageExists(c.image_id)) say('comment', c.id, `image_id ${c.image_id} is not a known image`);
    if (!userExists(c.user_id)) say('comment', c.id, `user_id ${c.user_id} is not a known user`);
  }

  // --- forums, topics, posts
  const fileForums = new Set([...board.forums.map((f) => f.short_name), ...keys.forums]);
  const forumRefs = [...board.topics.map((t) => t.forum), ...board.posts.flatMap((p) => (p.forum ? [p.forum] : []))].filter((f) => !fileForums.has(f));
  const dbForums = new Set((forumRefs.length ? await db.select({ s: forums.shortName }).from(forums).where(inArray(forums.shortName, [...new Set(forumRefs)])) : []).map((r) => r.s));
  const forumExists = (s: string) => fileForums.has(s) || dbForums.has(s);
  if (board.forums.some((f) => f.id !== undefined)) {
    const withIds = board.forums.filter((f) => f.id !== undefined);
    for (const row of await db.select({ id: forums.id, s: forums.shortName }).from(forums).where(inArray(forums.id, withIds.map((f) => f.id!)))) {
      const f = withIds.find((x) => x.id === row.id)!;
      if (f.short_name !== row.s) say('forum', f.short_name, `id ${row.id} already belongs to forum ${row.s}`);
    }
  }
  const topicKeys = new Map<string, { forum: string; slug: string }>();
  for (const t of board.topics) {
    if (!forumExists(t.forum)) say('topic', `${t.forum}/${t.slug}`, `forum ${t.forum} is not a known forum`);
    if (!userExists(t.user_id)) say('topic', `${t.forum}/${t.slug}`, `user_id ${t.user_id} is not a known user`);
    topicKeys.set(`${t.forum}/${t.slug}`, { forum: t.forum, slug: t.slug });
  }
  const dbTopicRows = board.posts.length
    ? await db
        .select({ slug: topics.slug, forum: forums.shortName })
        .from(topics)
        .innerJoin(forums, eq(forums.id, topics.forumId))
        .where(inArray(topics.slug, [...new Set(board.posts.map((p) => p.topic))]))
    : [];
  for (const r of dbTopicRows) if (!topicKeys.has(`${r.forum}/${r.slug}`)) topicKeys.set(`${r.forum}/${r.slug}`, { forum: r.forum, slug: r.slug });
  const postTopic = new Map<number, string>();
  for (const p of board.posts) {
    const matches = [...topicKeys.values()].filter((t) => t.slug === p.topic && (p.forum === undefined || t.forum === p.forum));
    if (matches.length === 0) say('post', p.id, `topic ${p.forum ? `${p.forum}/` : ''}${p.topic} is not a known topic`);
    else if (matches.length > 1) say('post', p.id, `topic ${p.topic} exists in several forums (${matches.map((m) => m.forum).join(', ')}); give forum`);
    else postTopic.set(p.id, `${matches[0]!.forum}/${matches[0]!.slug}`);
    if (!userExists(p.user_id)) say('post', p.id, `user_id ${p.user_id} is not a known user`);
  }
  const positions = new Map<string, number[]>();
  for (const p of board.posts) {
    const key = postTopic.get(p.id);
    if (key && p.topic_position !== undefined) positions.set(key, [...(positions.get(key) ?? []), p.topic_position]);
  }
  for (const [key, list] of positions) if (new Set(list).size !== list.length) say('topic', key, 'two posts have the same topic_position');

  // --- galleries
  for (const g of board.galleries) {
    const owner = g.user_id ?? g.creator_id;
    if (owner === undefined || !userExists(owner)) say('gallery', g.id, `user_id ${owner} is not a known user`);
    if (!imageExists(g.thumbnail_id)) say('gallery', g.id, `thumbnail_id ${g.thumbnail_id} is not a known image`);
    for (const i of g.image_ids) if (!imageExists(i)) say('gallery', g.id, `image_ids: ${i} is not a known image`);
  }

  // --- filters
  const ownerIds = board.filters.flatMap((f) => (f.user_id !== null && !fileUserIds.has(f.user_id) ? [f.user_id] : []));
  const roleOf = new Map<number, Role>(board.users.map((u) => [u.id, u.role]));
  if (ownerIds.length) for (const r of await db.select({ id: users.id, role: users.role }).from(users).where(inArray(users.id, ownerIds))) roleOf.set(r.id, r.role);
  for (const f of board.filters) {
    if (!userExists(f.user_id)) say('filter', f.id, `user_id ${f.user_id} is not a known user`);
    for (const t of [...f.hidden_tag_ids, ...f.spoilered_tag_ids]) if (!tagExists(t)) say('filter', f.id, `unknown tag ${t}`);
    // A system filter serves everyone, so it may only use what anyone may search; a user's
    // filter may use what its owner may.
    const as = f.system || f.user_id === null ? {} : { role: roleOf.get(f.user_id) ?? ('user' as const), userId: f.user_id };
    for (const [field, q] of [['hidden_complex', f.hidden_complex], ['spoilered_complex', f.spoilered_complex]] as const) {
      const problem = q ? await complexProblem(q, as) : null;
      if (problem) say('filter', f.id, `${field} is invalid: ${problem}`);
    }
  }

  // --- links and awards
  const linkTags = await existingIds(db, tags, tags.id, board.users.flatMap((u) => u.links.flatMap((l) => (l.tag_id === null ? [] : [l.tag_id]))));
  for (const u of board.users) {
    for (const l of u.links) {
      if (l.user_id !== undefined && l.user_id !== u.id) say('user', u.id, `links: user_id ${l.user_id} is not this user`);
      if (l.tag_id !== null && !fileTagIds.has(l.tag_id) && !linkTags.has(l.tag_id)) say('user', u.id, `links: unknown tag ${l.tag_id}`);
    }
  }
  const badgeDefs = new Map<number, { title: string; image: string }>();
  for (const u of board.users) {
    for (const a of u.awards) {
      const def = { title: a.title, image: assetKey(a.image_url, 'badge-img') };
      const prior = badgeDefs.get(a.id);
      if (prior && (prior.title !== def.title || prior.image !== def.image)) say('user', u.id, `awards: badge ${a.id} is described differently elsewhere in the file`);
      badgeDefs.set(a.id, def);
    }
  }

  return { problems, resolved: { tagIdBySlug, topicKeys, files } };
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

async function write(tx: Transaction, board: ParsedBoard, resolved: Resolved, tally: Tally): Promise<void> {
  // users
  await upsertById(tx, users, users.id, 'id', board.users.map((u) => ({
    id: u.id,
    name: u.name,
    slug: u.slug ?? slugify(u.name),
    role: u.role,
    description: u.description ?? '',
    avatar: u.avatar_url ? assetKey(u.avatar_url, 'avatars') : null,
    imagesCount: u.uploads_count,
    commentsCount: u.comments_count,
    postsCount: u.posts_count,
    topicsCount: u.topics_count,
    ...(u.email !== undefined ? { email: u.email } : {}),
    confirmedAt: u.created_at,
    createdAt: u.created_at,
    updatedAt: u.created_at,
  })), tally, 'users');

  // badges and awards
  const badgeRows = new Map<number, typeof badges.$inferInsert>();
  for (const u of board.users) {
    for (const a of u.awards) {
      badgeRows.set(a.id, { id: a.id, title: a.title, image: assetKey(a.image_url, 'badge-img'), ...(a.description !== undefined ? { description: a.description } : {}) });
    }
  }
  await upsertById(tx, badges, badges.id, 'id', [...badgeRows.values()], tally, 'badges');
  await syncChildren(tx, {
    table: badgeAwards,
    parentColumn: badgeAwards.userId,
    parentKey: 'userId',
    key: (r) => `${r.badgeId}|${r.label}|${(r.awardedOn as Date).getTime()}`,
    where: (r) => and(eq(badgeAwards.userId, r.userId as number), eq(badgeAwards.badgeId, r.badgeId as number), eq(badgeAwards.label, r.label as string), eq(badgeAwards.awardedOn, r.awardedOn as Date)),
    label: 'badge_awards',
  }, board.users.map((u) => u.id), board.users.flatMap((u) => u.awards.map((a) => ({ userId: u.id, badgeId: a.id, label: a.label ?? '', awardedOn: a.awarded_on }))), tally);

  // API keys: added, never removed (a file cannot know the keys issued since).
  for (const u of board.users) {
    const list = u.api_key === undefined ? [] : Array.isArray(u.api_key) ? u.api_key : [u.api_key];
    for (const key of list) {
      const hash = hashApiKey(key);
      const [row] = await tx.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.keyHash, hash));
      if (row) tally.add('unchanged', 'api_keys');
      else {
        await tx.insert(apiKeys).values({ userId: u.id, keyHash: hash, prefix: key.slice(0, 6), createdAt: u.created_at });
        tally.add('inserted', 'api_keys');
      }
    }
  }

  // tags: rows first without aliases (targets may come later in the file), then aliases.
  const tagRows = board.tags.map((t) => {
    const { namespace, nameInNamespace } = splitNamespace(t.name);
    return {
      id: t.id,
      name: t.name,
      slug: slugify(t.name),
      namespace,
      nameInNamespace,
      category: t.category !== undefined ? t.category : categoryFor(t.name, namespace),
      description: t.description ?? '',
      shortDescription: t.short_description ?? '',
      image: t.spoiler_image_uri ? assetKey(t.spoiler_image_uri, 'tag-img') : null,
      imagesCount: t.images,
      aliasedTagId: t.aliased_tag ? resolved.tagIdBySlug.get(t.aliased_tag)! : null,
    };
  });
  const currentAlias = new Map(
    (board.tags.length ? await tx.select({ id: tags.id, aliasedTagId: tags.aliasedTagId }).from(tags).where(inArray(tags.id, board.tags.map((t) => t.id))) : []).map((r) => [r.id, r.aliasedTagId]),
  );
  // Two passes: every tag exists (with its alias as it was) before any alias points at one.
  const keptAlias = (id: number) => currentAlias.get(id) ?? null;
  const untouched = await upsertById(tx, tags, tags.id, 'id', tagRows.map((r) => ({ ...r, aliasedTagId: keptAlias(r.id) })), tally, 'tags');
  for (const r of tagRows) {
    if (r.aliasedTagId === keptAlias(r.id)) continue;
    await tx.update(tags).set({ aliasedTagId: r.aliasedTagId }).where(eq(tags.id, r.id));
    if (untouched.has(r.id)) {
      tally.add('unchanged', 'tags', -1);
      tally.add('updated', 'tags');
    }
  }
  const implicationPairs = new Map<string, { tagId: number; impliedTagId: number }>();
  for (const t of board.tags) {
    for (const s of t.implied_tags) implicationPairs.set(`${t.id}|${resolved.tagIdBySlug.get(s)}`, { tagId: t.id, impliedTagId: resolved.tagIdBySlug.get(s)! });
  }
  await syncChildren(tx, {
    table: tagImplications,
    parentColumn: tagImplications.tagId,
    parentKey: 'tagId',
    key: (r) => String(r.impliedTagId),
    where: (r) => and(eq(tagImplications.tagId, r.tagId as number), eq(tagImplications.impliedTagId, r.impliedTagId as number)),
    label: 'tag_implications',
  }, board.tags.map((t) => t.id), [...implicationPairs.values()], tally);
  // implied_by_tags of tags outside the file: only added (their own records are not in the file).
  const fileTagIds = new Set(board.tags.map((t) => t.id));
  const extra = board.tags.flatMap((t) => t.implied_by_tags.map((s) => ({ tagId: resolved.tagIdBySlug.get(s)!, impliedTagId: t.id }))).filter((p) => !fileTagIds.has(p.tagId));
  if (extra.length) await tx.insert(tagImplications).values(extra).onConflictDoNothing();
  await upsertById(tx, dnpEntries, dnpEntries.id, 'id', board.tags.flatMap((t) => t.dnp_entries.map((d) => ({
    id: d.id,
    tagId: t.id,
    dnpType: d.dnp_type,
    conditions: d.conditions ?? '',
    reason: d.reason ?? '',
    hideReason: d.reason === null,
    state: 'listed' as const,
    createdAt: d.created_at,
    updatedAt: d.created_at,
  }))), tally, 'dnp_entries');

  // user links (after tags: they point at artist tags)
  await syncChildren(tx, {
    table: userLinks,
    parentColumn: userLinks.userId,
    parentKey: 'userId',
    key: (r) => `${(r.createdAt as Date).getTime()}|${r.tagId}|${r.uri}`,
    where: (r) => and(eq(userLinks.userId, r.userId as number), eq(userLinks.createdAt, r.createdAt as Date), eq(userLinks.uri, r.uri as string)),
    label: 'user_links',
  }, board.users.map((u) => u.id), board.users.flatMap((u) => u.links.map((l) => ({
    userId: u.id,
    tagId: l.tag_id,
    uri: l.uri ?? '',
    state: l.state,
    public: l.public ?? true,
    createdAt: l.created_at,
  }))), tally);

  // images, then their tags, sources and intensities
  const imageRows: Array<typeof images.$inferInsert> = [];
  for (const img of board.images) {
    const f = resolved.files.get(img.id);
    const format = f?.format ?? img.format ?? 'png';
    imageRows.push({
      id: img.id,
      userId: img.uploader_id,
      anonymous: img.anonymous,
      imageName: f?.name ?? img.name ?? `${img.id}.${format}`,
      imageWidth: f?.width ?? img.width ?? 0,
      imageHeight: f?.height ?? img.height ?? 0,
      imageSize: f?.size ?? img.size ?? 0,
      imageOrigSize: f?.origSize ?? img.orig_size ?? img.size ?? 0,
      imageFormat: format,
      imageMimeType: f?.mimeType ?? img.mime_type ?? 'image/png',
      imageAspectRatio: f?.aspectRatio ?? img.aspect_ratio ?? (img.width && img.height ? img.width / img.height : 1),
      imageDuration: f?.duration ?? img.duration ?? 0,
      isAnimated: f?.animated ?? img.animated ?? false,
      imageSha512Hash: f?.sha512 ?? img.sha512_hash ?? '',
      imageOrigSha512Hash: f?.origSha512 ?? img.orig_sha512_hash ?? img.sha512_hash ?? '',
      storageKey: f?.storageKey ?? null,
      description: img.description,
      score: img.upvotes - img.downvotes,
      upvotesCount: img.upvotes,
      downvotesCount: img.downvotes,
      favesCount: img.faves,
      hidesCount: img.hides,
      commentsCount: img.comment_count,
      hiddenFromUsers: img.hidden_from_users,
      deletionReason: img.hidden_from_users && img.duplicate_of === null ? img.deletion_reason : null,
      duplicateId: img.duplicate_of,
      processed: f ? true : (img.processed ?? true),
      thumbnailsGenerated: f ? true : (img.thumbnails_generated ?? false),
      duplicationChecked: true,
      firstSeenAt: img.first_seen_at ?? img.created_at,
      createdAt: img.created_at,
      updatedAt: img.updated_at ?? img.created_at,
    });
  }
  await upsertById(tx, images, images.id, 'id', imageRows, tally, 'images');

  const taggings: Array<{ imageId: number; tagId: number; position: number }> = [];
  for (const img of board.images) {
    let ids = img.tag_ids;
    if (ids === undefined && img.tags !== undefined) ids = (await getOrCreateTags(tx, img.tags)).map((t) => t.id);
    (ids ?? []).forEach((tagId, position) => taggings.push({ imageId: img.id, tagId, position }));
  }
  await syncChildren(tx, {
    table: imageTaggings,
    parentColumn: imageTaggings.imageId,
    parentKey: 'imageId',
    key: (r) => String(r.tagId),
    where: (r) => and(eq(imageTaggings.imageId, r.imageId as number), eq(imageTaggings.tagId, r.tagId as number)),
    label: 'image_taggings',
  }, board.images.filter((i) => i.tag_ids !== undefined || i.tags !== undefined).map((i) => i.id), taggings, tally);

  const sources = board.images.flatMap((img) => {
    const list = img.source_urls ?? (img.source_url ? [img.source_url] : []);
    return [...new Set(list.map((s) => s.trim()).filter(Boolean))].map((source, position) => ({ imageId: img.id, source, position }));
  });
  await syncChildren(tx, {
    table: imageSources,
    parentColumn: imageSources.imageId,
    parentKey: 'imageId',
    key: (r) => String(r.source),
    where: (r) => and(eq(imageSources.imageId, r.imageId as number), eq(imageSources.source, r.source as string)),
    label: 'image_sources',
  }, board.images.filter((i) => i.source_urls !== undefined || i.source_url !== undefined).map((i) => i.id), sources, tally);

  const intensityRows = board.images.flatMap((img) => {
    const f = resolved.files.get(img.id);
    if (f?.intensities) return [{ imageId: img.id, ...f.intensities }];
    if (!f && img.intensities) return [{ imageId: img.id, ...img.intensities }];
    return [];
  });
  await upsertById(tx, imageIntensities, imageIntensities.imageId, 'imageId', intensityRows, tally, 'image_intensities');

  // comments
  await upsertById(tx, comments, comments.id, 'id', board.comments.map((c) => ({
    id: c.id,
    imageId: c.image_id,
    userId: c.user_id,
    anonymous: c.anonymous,
    body: c.body ?? '',
    hiddenFromUsers: c.body === null,
    deletionReason: c.body === null ? (c.deletion_reason ?? '') : '',
    editedAt: c.edited_at,
    editReason: c.edit_reason,
    createdAt: c.created_at,
    updatedAt: c.updated_at ?? c.created_at,
  })), tally, 'comments');

  // forums (by short name), topics (by forum and slug), posts
  const forumIds = new Map<string, number>();
  for (const f of board.forums) {
    const [existing] = await tx.select().from(forums).where(eq(forums.shortName, f.short_name));
    const row = {
      name: f.name,
      shortName: f.short_name,
      description: f.description,
      accessLevel: f.access_level,
      topicCount: f.topic_count,
      postCount: f.post_count,
    };
    if (!existing) {
      const [inserted] = await tx.insert(forums).values({ ...(f.id !== undefined ? { id: f.id } : {}), ...row }).returning({ id: forums.id });
      forumIds.set(f.short_name, inserted!.id);
      tally.add('inserted', 'forums');
    } else {
      forumIds.set(f.short_name, existing.id);
      if (differs(existing, row)) {
        await tx.update(forums).set(row).where(eq(forums.id, existing.id));
        tally.add('updated', 'forums');
      } else tally.add('unchanged', 'forums');
    }
  }
  const forumId = async (shortName: string) => {
    if (!forumIds.has(shortName)) {
      const [row] = await tx.select({ id: forums.id }).from(forums).where(eq(forums.shortName, shortName));
      forumIds.set(shortName, row!.id);
    }
    return forumIds.get(shortName)!;
  };
  const topicIds = new Map<string, number>();
  for (const t of board.topics) {
    const fid = await forumId(t.forum);
    const [existing] = await tx.select().from(topics).where(and(eq(topics.forumId, fid), eq(topics.slug, t.slug)));
    const row = {
      forumId: fid,
      userId: t.user_id,
      anonymous: t.anonymous,
      title: t.title,
      slug: t.slug,
      sticky: t.sticky,
      lockedAt: t.locked ? (t.locked_at ?? t.last_replied_to_at) : null,
      postCount: t.post_count,
      viewCount: t.view_count,
      lastRepliedToAt: t.last_replied_to_at,
      createdAt: t.created_at ?? t.last_replied_to_at,
    };
    if (!existing) {
      const [inserted] = await tx.insert(topics).values({ ...(t.id !== undefined ? { id: t.id } : {}), ...row, updatedAt: t.last_replied_to_at }).returning({ id: topics.id });
      topicIds.set(`${t.forum}/${t.slug}`, inserted!.id);
      tally.add('inserted', 'topics');
    } else {
      topicIds.set(`${t.forum}/${t.slug}`, existing.id);
      if (differs(existing, row)) {
        await tx.update(topics).set(row).where(eq(topics.id, existing.id));
        tally.add('updated', 'topics');
      } else tally.add('unchanged', 'topics');
    }
  }
  const topicId = async (key: string) => {
    if (!topicIds.has(key)) {
      const { forum, slug } = resolved.topicKeys.get(key)!;
      const [row] = await tx.select({ id: topics.id }).from(topics).where(and(eq(topics.forumId, await forumId(forum)), eq(topics.slug, slug)));
      topicIds.set(key, row!.id);
    }
    return topicIds.get(key)!;
  };
  // Positions default to creation order within the file's posts of each topic.
  const byTopic = new Map<string, typeof board.posts>();
  for (const p of board.posts) {
    const key = [...resolved.topicKeys.values()].filter((t) => t.slug === p.topic && (p.forum === undefined || t.forum === p.forum)).map((t) => `${t.forum}/${t.slug}`)[0]!;
    byTopic.set(key, [...(byTopic.get(key) ?? []), p]);
  }
  const postRows: Array<typeof posts.$inferInsert> = [];
  for (const [key, list] of byTopic) {
    const tid = await topicId(key);
    const ordered = [...list].sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.id - b.id);
    ordered.forEach((p, index) => postRows.push({
      id: p.id,
      topicId: tid,
      userId: p.user_id,
      anonymous: p.anonymous,
      body: p.body ?? '',
      topicPosition: p.topic_position ?? index,
      hiddenFromUsers: p.body === null,
      editedAt: p.edited_at,
      editReason: p.edit_reason,
      createdAt: p.created_at,
      updatedAt: p.updated_at ?? p.created_at,
    }));
  }
  await upsertById(tx, posts, posts.id, 'id', postRows, tally, 'posts');

  // galleries and their images in order
  await upsertById(tx, galleries, galleries.id, 'id', board.galleries.map((g) => ({
    id: g.id,
    title: g.title,
    description: g.description,
    spoilerWarning: g.spoiler_warning,
    thumbnailId: g.thumbnail_id,
    creatorId: (g.user_id ?? g.creator_id)!,
    imageCount: g.image_ids.length,
    ...(g.created_at ? { createdAt: g.created_at } : {}),
    ...(g.updated_at ?? g.created_at ? { updatedAt: (g.updated_at ?? g.created_at)! } : {}),
  })), tally, 'galleries');
  await syncChildren(tx, {
    table: galleryInteractions,
    parentColumn: galleryInteractions.galleryId,
    parentKey: 'galleryId',
    key: (r) => String(r.imageId),
    where: (r) => and(eq(galleryInteractions.galleryId, r.galleryId as number), eq(galleryInteractions.imageId, r.imageId as number)),
    label: 'gallery_interactions',
  }, board.galleries.map((g) => g.id), board.galleries.flatMap((g) => g.image_ids.map((imageId, position) => ({ galleryId: g.id, imageId, position }))), tally);

  // filters
  await upsertById(tx, filters, filters.id, 'id', board.filters.map((f) => ({
    id: f.id,
    name: f.name,
    description: f.description,
    system: f.system,
    public: f.public,
    userId: f.user_id,
    userCount: f.user_count,
    hiddenTagIds: f.hidden_tag_ids,
    spoileredTagIds: f.spoilered_tag_ids,
    hiddenComplexStr: f.hidden_complex ?? '',
    spoileredComplexStr: f.spoilered_complex ?? '',
    ...(f.created_at ? { createdAt: f.created_at, updatedAt: f.created_at } : {}),
  })), tally, 'filters');

  // featured image: a new feature only if it is not already the current one
  if (board.featuredImageId != null) {
    const [current] = await tx.select({ imageId: imageFeatures.imageId }).from(imageFeatures).orderBy(desc(imageFeatures.createdAt), desc(imageFeatures.id)).limit(1);
    if (current?.imageId === board.featuredImageId) tally.add('unchanged', 'image_features');
    else {
      await tx.insert(imageFeatures).values({ imageId: board.featuredImageId });
      tally.add('inserted', 'image_features');
    }
  }

  await resetSequences(tx);
}

/**
 * Import a board (the parsed JSON of a board file). Throws ImportError listing every problem, and
 * then writes nothing; otherwise writes everything in one transaction and says what changed.
 */
export async function importBoard(db: Database, data: unknown, options: ImportOptions = {}): Promise<ImportSummary> {
  const { board, problems, keys } = parseBoard(data);
  // A file whose top level is wrong has no records to check further.
  if (problems.some((p) => p.startsWith('board: '))) throw new ImportError(problems);
  const { problems: refProblems, resolved } = await checkReferences(db, board, keys, options);
  if (problems.length + refProblems.length > 0) throw new ImportError([...problems, ...refProblems]);

  // Files before rows: if the transaction fails, the files are unreferenced and the next import
  // rewrites them (their keys are fixed by id and date); rows never point at a missing file.
  let filesWritten = 0;
  for (const f of resolved.files.values()) {
    for (const p of f.pending ?? []) {
      await options.fileStore!.put(p.key, p.buffer);
      filesWritten++;
    }
  }
  const tally = new Tally();
  await db.transaction(async (tx) => write(tx, board, resolved, tally));
  return { inserted: tally.inserted, updated: tally.updated, unchanged: tally.unchanged, filesWritten };
}
