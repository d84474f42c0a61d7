/**
 * Checking an import before anything is written: duplicates, tag rules, and every reference
 * between records and to rows already in the database. Image files are read and processed here
 * (a file that cannot be analysed is a problem of its record).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, resolve } from 'node:path';
import { eq, inArray, or, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { cleanTagName, slugify, splitNamespace } from '../../grammar/index.js';
import { complexProblem } from '../contexts/search/filter-check.js';
import type { Database } from '../db/client.js';
import {
  apiKeys,
  forums,
  images,
  tags,
  topics,
  users,
  type Role,
} from '../db/schema/index.js';
import { isMediaError } from '../media/errors.js';
import type { Fingerprint } from '../media/fingerprint.js';
import { processImage } from '../media/process.js';
import { pathFor, type MediaStorage } from '../media/storage.js';
import { aliasSetProblems } from '../contexts/tags/aliases.js';
import { hashApiKey } from '../contexts/users/api-keys.js';
import type { ImportOptions } from './options.js';
import type { ImageRecord, ParsedBoard, ResourceName } from './schema.js';

/** What the importer needs of a processed image file. */
export interface FileFacts {
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
  /** Perceptual hashes, when the file was processed (null when the stored one was kept). */
  fingerprint: Fingerprint | null;
  storageKey: string;
  name: string;
  /** Bytes still to write (null when the stored file is already this one). */
  pending: Array<{ key: string; buffer: Buffer }> | null;
}



/** The path part of a URL after a root segment (`…/badge-img/x.svg` → `x.svg`), else its last segment. */
export function assetKey(url: string, root: string): string {
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

export interface Resolved {
  /** Tag id of every slug known (file, then database). */
  tagIdBySlug: Map<string, number>;
  /** Topic ids keyed by `forum/slug` (file topics get their id assigned later). */
  topicKeys: Map<string, { forum: string; slug: string }>;
  files: Map<number, FileFacts>;
}

async function analyseFile(store: MediaStorage | undefined, baseDir: string, img: ImageRecord, existing: typeof images.$inferSelect | undefined): Promise<FileFacts> {
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
      fingerprint: null,
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
  const { analysis, representations, intensities, fingerprint } = processed;
  const pending = representations.map((r) => ({ key: pathFor(img.created_at, img.id, r.name, r.ext), buffer: r.buffer }));
  const storageKey = pathFor(img.created_at, img.id, 'full', analysis.format);
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
    fingerprint,
    storageKey,
    name,
    pending,
  };
}

/** Names of some tag ids: the file's tags first, then the database's. */
async function tagNamesOf(db: Database, board: ParsedBoard, ids: number[]): Promise<Map<number, string>> {
  const names = new Map(board.tags.map((t) => [t.id, t.name]));
  const missing = [...new Set(ids.filter((i) => !names.has(i)))];
  for (let i = 0; i < missing.length; i += 5000) {
    for (const row of await db.select({ id: tags.id, name: tags.name }).from(tags).where(inArray(tags.id, missing.slice(i, i + 5000)))) names.set(row.id, row.name);
  }
  return names;
}

/**
 * An image as the API serves it carries both `tag_ids` and `tags` (the names of those ids). The
 * ids are what is imported; the names must name the same tags, in any order, or the record says
 * two different things. Unknown ids are reported on their own.
 */
function tagListsDisagree(tagIds: readonly number[], tagNames: readonly string[], nameById: ReadonlyMap<number, string>): string | null {
  const fromIds = new Set(tagIds.flatMap((id) => {
    const name = nameById.get(id);
    return name === undefined ? [] : [name];
  }));
  if (fromIds.size < new Set(tagIds).size) return null;
  const given = new Set(tagNames.map(cleanTagName));
  const onlyNames = [...given].filter((n) => !fromIds.has(n)).sort();
  const onlyIds = [...fromIds].filter((n) => !given.has(n)).sort();
  if (onlyNames.length === 0 && onlyIds.length === 0) return null;
  const parts = [
    ...(onlyNames.length ? [`tags has ${onlyNames.map((n) => JSON.stringify(n)).join(', ')} not in tag_ids`] : []),
    ...(onlyIds.length ? [`tag_ids has ${onlyIds.map((n) => JSON.stringify(n)).join(', ')} not in tags`] : []),
  ];
  return `tags and tag_ids disagree: ${parts.join('; ')}`;
}

/** Check every reference of a parsed board against itself and the database. */
export async function checkReferences(
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
  const tagNameById = await tagNamesOf(db, board, board.images.flatMap((i) => (i.tag_ids !== undefined && i.tags !== undefined ? i.tag_ids : [])));
  const existingImages = new Map<number, typeof images.$inferSelect>();
  const withFiles = board.images.filter((i) => i.file !== undefined);
  if (withFiles.length > 0) {
    for (const row of await db.select().from(images).where(inArray(images.id, withFiles.map((i) => i.id)))) existingImages.set(row.id, row);
  }
  const files = new Map<number, FileFacts>();
  for (const img of board.images) {
    if (!userExists(img.uploader_id)) say('image', img.id, `uploader_id ${img.uploader_id} is not a known user`);
    if (img.duplicate_of !== null && !imageExists(img.duplicate_of)) say('image', img.id, `duplicate_of ${img.duplicate_of} is not a known image`);
    if (img.tag_ids !== undefined && img.tags !== undefined) {
      const problem = tagListsDisagree(img.tag_ids, img.tags, tagNameById);
      if (problem) say('image', img.id, problem);
    }
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
