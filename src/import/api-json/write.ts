/**
 * Writing a checked import in one transaction, kind by kind (`upsert.ts`: rows upserted by id and
 * only when they differ, child rows made exactly what the file says; `write-forums.ts`: forums,
 * topics and posts).
 */
import { desc, eq, inArray } from 'drizzle-orm';
import { slugify, splitNamespace } from '../../../grammar/index.js';
import {
  apiKeys,
  badgeAwards,
  badges,
  comments,
  dnpEntries,
  filters,
  galleries,
  galleryInteractions,
  imageFeatures,
  imageIntensities,
  imageFingerprints,
  imageSources,
  imageTaggings,
  images,
  tagImplications,
  tags,
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
import { syncChildren, upsertById, type Tally } from './upsert.js';
import { writeForumsTopicsAndPosts } from './write-forums.js';


/** Write the whole board: each kind after the kinds its rows point at. */
export async function writeBoard(tx: Transaction, board: ParsedBoard, resolved: Resolved, tally: Tally): Promise<void> {
  await reserveBoardIds(tx, board);
  await writeUsers(tx, board, tally);
  await writeBadges(tx, board, tally);
  await writeApiKeys(tx, board, tally);
  await writeTags(tx, board, resolved, tally);
  await writeTagImplications(tx, board, resolved, tally);
  await writeDnpEntries(tx, board, tally);
  // user links after tags: they point at artist tags
  await writeUserLinks(tx, board, tally);
  await writeImages(tx, board, resolved, tally);
  await writeImageChildren(tx, board, resolved, tally);
  await writeComments(tx, board, tally);
  await writeForumsTopicsAndPosts(tx, board, resolved, tally);
  await writeGalleries(tx, board, tally);
  await writeFilters(tx, board, tally);
  await writeFeaturedImage(tx, board, tally);
  await resetSequences(tx);
}

/** Move the id sequences past the largest id of each kind the file holds. */
async function reserveBoardIds(tx: Transaction, board: ParsedBoard): Promise<void> {
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
}

/** Users by id. */
async function writeUsers(tx: Transaction, board: ParsedBoard, tally: Tally): Promise<void> {
  await upsertById(tx, users, 'id', board.users.map((u) => ({
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
  })), tally);
}

/** Badges by id, and each user's awards exactly as the file lists them. */
async function writeBadges(tx: Transaction, board: ParsedBoard, tally: Tally): Promise<void> {
  const badgeRows = new Map<number, typeof badges.$inferInsert>();
  for (const u of board.users) {
    for (const a of u.awards) {
      badgeRows.set(a.id, { id: a.id, title: a.title, image: assetKey(a.image_url, 'badge-img'), ...(a.description !== undefined ? { description: a.description } : {}) });
    }
  }
  await upsertById(tx, badges, 'id', [...badgeRows.values()], tally);
  const awards = board.users.flatMap((u) => u.awards.map((a) => ({ userId: u.id, badgeId: a.id, label: a.label ?? '', awardedOn: a.awarded_on })));
  await syncChildren(tx, { table: badgeAwards, parent: 'userId', identity: ['badgeId', 'label', 'awardedOn'] }, board.users.map((u) => u.id), awards, tally);
}

/** API keys: added, never removed (a file cannot know the keys issued since). */
async function writeApiKeys(tx: Transaction, board: ParsedBoard, tally: Tally): Promise<void> {
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
}

/** Tags by id: rows first without aliases (targets may come later in the file), then aliases. */
async function writeTags(tx: Transaction, board: ParsedBoard, resolved: Resolved, tally: Tally): Promise<void> {
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
  const untouched = await upsertById(tx, tags, 'id', tagRows.map((r) => ({ ...r, aliasedTagId: keptAlias(r.id) })), tally);
  for (const r of tagRows) {
    if (r.aliasedTagId === keptAlias(r.id)) continue;
    await tx.update(tags).set({ aliasedTagId: r.aliasedTagId }).where(eq(tags.id, r.id));
    if (untouched.has(r.id)) {
      tally.add('unchanged', 'tags', -1);
      tally.add('updated', 'tags');
    }
  }
}

/** The implications of the file's tags, and those its tags are implied by. */
async function writeTagImplications(tx: Transaction, board: ParsedBoard, resolved: Resolved, tally: Tally): Promise<void> {
  const implicationPairs = new Map<string, { tagId: number; impliedTagId: number }>();
  for (const t of board.tags) {
    for (const s of t.implied_tags) implicationPairs.set(`${t.id}|${resolved.tagIdBySlug.get(s)}`, { tagId: t.id, impliedTagId: resolved.tagIdBySlug.get(s)! });
  }
  await syncChildren(tx, { table: tagImplications, parent: 'tagId', identity: ['impliedTagId'] }, board.tags.map((t) => t.id), [...implicationPairs.values()], tally);
  // implied_by_tags of tags outside the file: only added (their own records are not in the file).
  const fileTagIds = new Set(board.tags.map((t) => t.id));
  const extra = board.tags.flatMap((t) => t.implied_by_tags.map((s) => ({ tagId: resolved.tagIdBySlug.get(s)!, impliedTagId: t.id }))).filter((p) => !fileTagIds.has(p.tagId));
  if (extra.length) await tx.insert(tagImplications).values(extra).onConflictDoNothing();
}

/** Do-not-post entries by id. */
async function writeDnpEntries(tx: Transaction, board: ParsedBoard, tally: Tally): Promise<void> {
  await upsertById(tx, dnpEntries, 'id', board.tags.flatMap((t) => t.dnp_entries.map((d) => ({
    id: d.id,
    tagId: t.id,
    dnpType: d.dnp_type,
    conditions: d.conditions ?? '',
    reason: d.reason ?? '',
    hideReason: d.reason === null,
    state: 'listed' as const,
    createdAt: d.created_at,
    updatedAt: d.created_at,
  }))), tally);
}

/** Users' links exactly as the file lists them. */
async function writeUserLinks(tx: Transaction, board: ParsedBoard, tally: Tally): Promise<void> {
  const links = board.users.flatMap((u) => u.links.map((l) => ({
    userId: u.id,
    tagId: l.tag_id,
    uri: l.uri ?? '',
    state: l.state,
    public: l.public ?? true,
    createdAt: l.created_at,
  })));
  await syncChildren(tx, { table: userLinks, parent: 'userId', identity: ['createdAt', 'tagId', 'uri'] }, board.users.map((u) => u.id), links, tally);
}

/** Image rows by id (file facts from a stored file win over the file's own). */
async function writeImages(tx: Transaction, board: ParsedBoard, resolved: Resolved, tally: Tally): Promise<void> {
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
  await upsertById(tx, images, 'id', imageRows, tally);

}

/** Images' tags, sources, intensities and fingerprints. */
async function writeImageChildren(tx: Transaction, board: ParsedBoard, resolved: Resolved, tally: Tally): Promise<void> {
  const taggings: Array<{ imageId: number; tagId: number; position: number }> = [];
  for (const img of board.images) {
    let ids = img.tag_ids;
    if (ids === undefined && img.tags !== undefined) ids = (await getOrCreateTags(tx, img.tags)).map((t) => t.id);
    (ids ?? []).forEach((tagId, position) => taggings.push({ imageId: img.id, tagId, position }));
  }
  const tagged = board.images.filter((i) => i.tag_ids !== undefined || i.tags !== undefined).map((i) => i.id);
  await syncChildren(tx, { table: imageTaggings, parent: 'imageId', identity: ['tagId'] }, tagged, taggings, tally);

  const sources = board.images.flatMap((img) => {
    const list = img.source_urls ?? (img.source_url ? [img.source_url] : []);
    return [...new Set(list.map((s) => s.trim()).filter(Boolean))].map((source, position) => ({ imageId: img.id, source, position }));
  });
  const sourced = board.images.filter((i) => i.source_urls !== undefined || i.source_url !== undefined).map((i) => i.id);
  await syncChildren(tx, { table: imageSources, parent: 'imageId', identity: ['source'] }, sourced, sources, tally);

  const intensityRows = board.images.flatMap((img) => {
    const f = resolved.files.get(img.id);
    if (f?.intensities) return [{ imageId: img.id, ...f.intensities }];
    if (!f && img.intensities) return [{ imageId: img.id, ...img.intensities }];
    return [];
  });
  await upsertById(tx, imageIntensities, 'imageId', intensityRows, tally);
  const fingerprintRows = board.images.flatMap((img) => {
    const f = resolved.files.get(img.id)?.fingerprint;
    return f ? [fingerprintRow(img.id, f)] : [];
  });
  await upsertById(tx, imageFingerprints, 'imageId', fingerprintRows, tally);
}

/** Comments by id. */
async function writeComments(tx: Transaction, board: ParsedBoard, tally: Tally): Promise<void> {
  await upsertById(tx, comments, 'id', board.comments.map((c) => ({
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
  })), tally);
}

/** Galleries by id, and their images in order. */
async function writeGalleries(tx: Transaction, board: ParsedBoard, tally: Tally): Promise<void> {
  await upsertById(tx, galleries, 'id', board.galleries.map((g) => ({
    id: g.id,
    title: g.title,
    description: g.description,
    spoilerWarning: g.spoiler_warning,
    thumbnailId: g.thumbnail_id,
    creatorId: (g.user_id ?? g.creator_id)!,
    imageCount: g.image_ids.length,
    ...(g.created_at ? { createdAt: g.created_at } : {}),
    ...(g.updated_at ?? g.created_at ? { updatedAt: (g.updated_at ?? g.created_at)! } : {}),
  })), tally);
  const interactions = board.galleries.flatMap((g) => g.image_ids.map((imageId, position) => ({ galleryId: g.id, imageId, position })));
  await syncChildren(tx, { table: galleryInteractions, parent: 'galleryId', identity: ['imageId'] }, board.galleries.map((g) => g.id), interactions, tally);
}

/** Filters by id. */
async function writeFilters(tx: Transaction, board: ParsedBoard, tally: Tally): Promise<void> {
  await upsertById(tx, filters, 'id', board.filters.map((f) => ({
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
  })), tally);
}

/** The featured image: a new feature only if it is not already the current one. */
async function writeFeaturedImage(tx: Transaction, board: ParsedBoard, tally: Tally): Promise<void> {
  if (board.featuredImageId != null) {
    const [current] = await tx.select({ imageId: imageFeatures.imageId }).from(imageFeatures).orderBy(desc(imageFeatures.createdAt), desc(imageFeatures.id)).limit(1);
    if (current?.imageId === board.featuredImageId) tally.add('unchanged', 'image_features');
    else {
      await tx.insert(imageFeatures).values({ imageId: board.featuredImageId });
      tally.add('inserted', 'image_features');
    }
  }
}
