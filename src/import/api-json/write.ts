/**
 * Writing a checked import in one transaction: rows are upserted by id and only when they differ,
 * child rows (tags of an image, images of a gallery, ...) are made exactly what the file says.
 */
import { and, desc, eq, inArray, isNull } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { slugify, splitNamespace } from '../../../grammar/index.js';
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
  imageFingerprints,
  imageSources,
  imageTaggings,
  images,
  posts,
  tagImplications,
  tags,
  topics,
  userLinks,
  users,
} from '../../db/schema/index.js';
import { reserveIds, resetSequences } from '../../seed/common.js';
import { categoryFor } from '../../contexts/tags/categories.js';
import type { Transaction } from '../../db/executor.js';
import { fingerprintRow } from '../../contexts/images/fingerprints.js';
import { getOrCreateTags } from '../../contexts/tags/get-or-create.js';
import { hashApiKey } from '../../contexts/users/api-keys.js';
import { assetKey, type Resolved } from './check.js';
import type { ParsedBoard } from './schema.js';

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

export class Tally {
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
    label: string;
    /** The one property (and its column) naming the parent row, e.g. `{ imageId: imageTaggings.imageId }`. */
    parent: Record<string, PgColumn>;
    /** The properties (and columns) that tell a parent's children apart. */
    identity: Record<string, PgColumn>;
  },
  parentIds: readonly number[],
  desired: R[],
  tally: Tally,
): Promise<void> {
  if (parentIds.length === 0) return;
  const [parentColumn] = Object.values(spec.parent) as [PgColumn];
  const columns = Object.entries({ ...spec.parent, ...spec.identity });
  // Dates compare by instant; a null key (an unset optional reference) matches only null.
  const key = (row: R) => columns.map(([k]) => (row[k] instanceof Date ? (row[k] as Date).getTime() : String(row[k]))).join('|');
  const where = (row: R) => and(...columns.map(([k, column]) => (row[k] === null ? isNull(column) : eq(column, row[k]))));
  const existing = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < parentIds.length; i += 1000) {
    const found = (await tx.select().from(spec.table).where(inArray(parentColumn, parentIds.slice(i, i + 1000)))) as R[];
    for (const row of found) existing.set(key(row), row);
  }
  const wanted = new Set<string>();
  const fresh: R[] = [];
  for (const row of desired) {
    const k = key(row);
    wanted.add(k);
    const old = existing.get(k);
    if (!old) fresh.push(row);
    else if (differs(old, row)) {
      await tx.update(spec.table).set(row as never).where(where(row));
      tally.add('updated', spec.label);
    } else tally.add('unchanged', spec.label);
  }
  for (const [k, old] of existing) {
    if (!wanted.has(k)) {
      await tx.delete(spec.table).where(where(old as R));
      tally.add('updated', spec.label);
    }
  }
  for (let i = 0; i < fresh.length; i += 500) await tx.insert(spec.table).values(fresh.slice(i, i + 500) as never);
  tally.add('inserted', spec.label, fresh.length);
}


export async function writeBoard(tx: Transaction, board: ParsedBoard, resolved: Resolved, tally: Tally): Promise<void> {
  const largest = (rows: readonly { id: number }[]) => rows.reduce((max, r) => Math.max(max, r.id), 0);
  await reserveIds(tx, {
    users: largest(board.users),
    tags: largest(board.tags),
    images: largest(board.images),
    comments: largest(board.comments),
    posts: largest(board.posts),
    galleries: largest(board.galleries),
    filters: largest(board.filters),
  });
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
    ...(u.verified !== undefined ? { verified: u.verified } : {}),
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
    table: badgeAwards, label: 'badge_awards',
    parent: { userId: badgeAwards.userId },
    identity: { badgeId: badgeAwards.badgeId, label: badgeAwards.label, awardedOn: badgeAwards.awardedOn },
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
    table: tagImplications, label: 'tag_implications',
    parent: { tagId: tagImplications.tagId },
    identity: { impliedTagId: tagImplications.impliedTagId },
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
    table: userLinks, label: 'user_links',
    parent: { userId: userLinks.userId },
    identity: { createdAt: userLinks.createdAt, tagId: userLinks.tagId, uri: userLinks.uri },
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
    table: imageTaggings, label: 'image_taggings',
    parent: { imageId: imageTaggings.imageId },
    identity: { tagId: imageTaggings.tagId },
  }, board.images.filter((i) => i.tag_ids !== undefined || i.tags !== undefined).map((i) => i.id), taggings, tally);

  const sources = board.images.flatMap((img) => {
    const list = img.source_urls ?? (img.source_url ? [img.source_url] : []);
    return [...new Set(list.map((s) => s.trim()).filter(Boolean))].map((source, position) => ({ imageId: img.id, source, position }));
  });
  await syncChildren(tx, {
    table: imageSources, label: 'image_sources',
    parent: { imageId: imageSources.imageId },
    identity: { source: imageSources.source },
  }, board.images.filter((i) => i.source_urls !== undefined || i.source_url !== undefined).map((i) => i.id), sources, tally);

  const intensityRows = board.images.flatMap((img) => {
    const f = resolved.files.get(img.id);
    if (f?.intensities) return [{ imageId: img.id, ...f.intensities }];
    if (!f && img.intensities) return [{ imageId: img.id, ...img.intensities }];
    return [];
  });
  await upsertById(tx, imageIntensities, imageIntensities.imageId, 'imageId', intensityRows, tally, 'image_intensities');
  const fingerprintRows = board.images.flatMap((img) => {
    const f = resolved.files.get(img.id)?.fingerprint;
    return f ? [fingerprintRow(img.id, f)] : [];
  });
  await upsertById(tx, imageFingerprints, imageFingerprints.imageId, 'imageId', fingerprintRows, tally, 'image_fingerprints');

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
    table: galleryInteractions, label: 'gallery_interactions',
    parent: { galleryId: galleryInteractions.galleryId },
    identity: { imageId: galleryInteractions.imageId },
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
