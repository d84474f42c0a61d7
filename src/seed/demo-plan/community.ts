/**
 * The demo's conversation and collections: comments on images, forums with topics and posts,
 * and galleries with their images and subscribers.
 */
import { destructiveSlug } from '../common.js';
import { COMMENTS, POSTS, TOPICS } from '../vocabulary.js';
import { type Board, DAY, type DemoRow, add, fakeIp, fingerprint, minDate } from './board.js';

export function planComments(b: Board, visible: DemoRow<'images'>[], popularity: Map<number, number>): DemoRow<'comments'>[] {
  const { n, end, R, usersBefore, moderator } = b;
  const cr = R('comments');
  const plannedComments: Array<Omit<DemoRow<'comments'>, 'id'>> = [];
  for (const row of visible) {
    const pop = popularity.get(row.id!)!;
    const count = cr.chance(0.45) ? 0 : Math.floor(cr.float() * (1 + pop * 8)) + (cr.chance(0.3) ? 1 : 0);
    for (let c = 0; c < count; c++) {
      const at = cr.date(add(row.createdAt!, 60_000), add(end, -60_000));
      const authors = usersBefore(at);
      const noUser = authors.length === 0 || cr.chance(0.04);
      const author = noUser ? null : cr.pick(authors);
      const quote = cr.chance(0.08) ? `>>${cr.int(1, n)}\n` : '';
      const edited = cr.chance(0.05);
      plannedComments.push({
        imageId: row.id!,
        userId: author?.id ?? null,
        anonymous: author !== null && cr.chance(0.08),
        ip: fakeIp(cr),
        fingerprint: fingerprint(cr),
        body: quote + cr.pick(COMMENTS),
        editedAt: edited ? minDate(add(at, cr.int(1, 120) * 60_000), add(end, -1000)) : null,
        editReason: edited ? cr.pick(['typo', 'formatting', 'added a link']) : null,
        createdAt: at,
        updatedAt: at,
      });
    }
  }
  plannedComments.sort((a, b) => a.createdAt!.getTime() - b.createdAt!.getTime());
  const commentRows: DemoRow<'comments'>[] = plannedComments.map((c, i) => ({ ...c, id: i + 1 }));
  for (const c of commentRows) if (c.editedAt) c.updatedAt = c.editedAt;
  // Even a tiny board has an anonymous comment and one without a user.
  if (commentRows.length >= 6) {
    if (!commentRows.some((c) => c.anonymous)) {
      const c = commentRows.find((x) => x.userId !== null);
      if (c) c.anonymous = true;
    }
    if (!commentRows.some((c) => c.userId === null)) {
      const c = commentRows.find((x) => !x.anonymous);
      if (c) c.userId = null;
    }
  }
  // One comment hidden by a moderator, one destroyed.
  if (commentRows.length >= 4) {
    const hidden = commentRows[Math.floor(commentRows.length / 3)]!;
    hidden.hiddenFromUsers = true;
    hidden.deletionReason = 'Spam';
    hidden.deletedById = moderator.id;
    const destroyed = commentRows[Math.floor((2 * commentRows.length) / 3)]!;
    destroyed.hiddenFromUsers = true;
    destroyed.destroyedContent = true;
    destroyed.deletionReason = 'Personal information';
    destroyed.deletedById = moderator.id;
    destroyed.body = '';
  }

  return commentRows;
}

/** Forums (one for staff only) with topics (sticky, locked) and their posts in position order. */
export function planForums(b: Board) {
  const { start, end, R, staff, admin, moderator, usersBefore } = b;
  const fr = R('forums');
  const forumDefs = [
    { key: 'general', name: 'General Discussion', shortName: 'dis', description: 'Anything goes, within the rules.', accessLevel: 'normal' },
    { key: 'art', name: 'Art Chat', shortName: 'art', description: 'Discuss art, techniques and your own work.', accessLevel: 'normal' },
    { key: 'meta', name: 'Site and Policy', shortName: 'meta', description: 'Questions and suggestions about the site.', accessLevel: 'normal' },
    { key: 'staff', name: 'Staff Room', shortName: 'staff', description: 'For staff only.', accessLevel: 'staff' },
  ] as const;
  const forumRows: DemoRow<'forums'>[] = forumDefs.map((f, i) => ({
    id: i + 1,
    name: f.name,
    shortName: f.shortName,
    description: f.description,
    accessLevel: f.accessLevel,
    topicCount: 0,
    postCount: 0,
    createdAt: add(start, -300 * DAY + i * 60_000),
    updatedAt: add(start, -300 * DAY + i * 60_000),
  }));
  const topicRows: DemoRow<'topics'>[] = [];
  const plannedPosts: Array<Omit<DemoRow<'posts'>, 'id'>> = [];
  forumDefs.forEach((f, fi) => {
    const titles = TOPICS[f.key];
    titles.forEach((title, ti) => {
      const topicId = topicRows.length + 1;
      const opened = fr.date(add(start, 10 * DAY), add(end, -30 * DAY));
      const pool = f.accessLevel === 'staff' ? staff : usersBefore(opened);
      const author = pool.length > 0 ? fr.pick(pool) : admin;
      const postCount = ti === 0 && f.key === 'general' ? fr.int(14, 22) : fr.int(2, 12);
      let at = opened;
      for (let p = 0; p < postCount; p++) {
        const writer = p === 0 ? author : fr.pick(f.accessLevel === 'staff' ? staff : usersBefore(at).length > 0 ? usersBefore(at) : [author]);
        plannedPosts.push({
          topicId,
          userId: writer.id,
          anonymous: f.accessLevel !== 'staff' && p > 0 && fr.chance(0.06),
          ip: fakeIp(fr),
          fingerprint: fingerprint(fr),
          body: p === 0 ? `${title}\n\n${fr.pick(POSTS)}` : fr.pick(POSTS),
          topicPosition: p,
          createdAt: at,
          updatedAt: at,
        });
        at = minDate(add(at, fr.int(10, 60 * 48) * 60_000), add(end, -1000 - (postCount - p) * 1000));
      }
      const lastAt = plannedPosts[plannedPosts.length - 1]!.createdAt!;
      topicRows.push({
        id: topicId,
        forumId: fi + 1,
        userId: author.id,
        anonymous: false,
        title,
        slug: destructiveSlug(title),
        sticky: ti === 0 && f.accessLevel === 'normal' && f.key !== 'art',
        lockedAt: f.key === 'meta' && ti === titles.length - 2 ? add(lastAt, DAY / 2) : null,
        hiddenFromUsers: false,
        postCount,
        viewCount: postCount * fr.int(5, 40),
        lastRepliedToAt: lastAt,
        createdAt: opened,
        updatedAt: lastAt,
      });
    });
  });
  const postOrder = plannedPosts
    .map((p, i) => ({ p, i }))
    .sort((a, b) => a.p.createdAt!.getTime() - b.p.createdAt!.getTime() || a.i - b.i);
  const postRows: DemoRow<'posts'>[] = postOrder.map(({ p }, i) => ({ ...p, id: i + 1 }));
  const hiddenPost = postRows.find((p) => p.topicPosition! > 1 && topicRows[p.topicId - 1]!.forumId === 1);
  if (hiddenPost) {
    hiddenPost.hiddenFromUsers = true;
    hiddenPost.deletionReason = 'Off-topic';
    hiddenPost.deletedById = moderator.id;
  }
  const editedPost = postRows.find((p) => p.topicPosition === 0 && topicRows[p.topicId - 1]!.forumId === 3);
  if (editedPost) {
    editedPost.editedAt = add(editedPost.createdAt!, 3_600_000);
    editedPost.updatedAt = editedPost.editedAt;
    editedPost.editReason = 'clarified the rules';
  }

  return { forumRows, topicRows, postRows };
}

export function planGalleries(b: Board, visible: DemoRow<'images'>[], imageTags: Map<number, string[]>) {
  const { end, R, plannedUsers } = b;
  const gr = R('galleries');
  const galleryDefs: Array<{ owner: string; title: string; description: string; spoiler: string; match: (tags: string[], row: DemoRow<'images'>) => boolean }> = [
    { owner: 'Willow Wisp', title: 'Cozy Corner', description: 'Warm, quiet pictures for rainy days.', spoiler: '', match: (t) => t.includes('safe') && (t.includes('smiling') || t.includes('cute')) },
    { owner: 'Night Owl', title: 'Princess of the Night', description: 'Everything Luna.', spoiler: '', match: (t) => t.includes('princess luna') || t.includes('night') },
    { owner: 'Rusty Gears', title: 'Background Ponies', description: 'The unsung heroes of every crowd scene.', spoiler: '', match: (t) => t.includes('derpy hooves') || t.includes('lyra heartstrings') || t.includes('bon bon') || t.includes('oc') },
    { owner: 'Copper Kettle', title: 'Pastel Dreams', description: 'Soft colours only.', spoiler: '', match: (t) => t.includes('safe') && t.includes('simple background') },
    { owner: 'Brushstroke', title: 'My Best Work', description: 'A selection of my favourite pieces.', spoiler: '', match: (t) => t.includes('artist:brushstroke') },
    { owner: 'Indigo Sky', title: 'Starry Nights', description: 'Stars, moons and night skies.', spoiler: 'Some of these are a little dark.', match: (t) => t.includes('stars') || t.includes('moon') || t.includes('grimdark') },
  ];
  const galleryRows: DemoRow<'galleries'>[] = [];
  const galleryItemRows: DemoRow<'galleryInteractions'>[] = [];
  const gallerySubRows: DemoRow<'gallerySubscriptions'>[] = [];
  if (visible.length > 0) {
    for (const def of galleryDefs) {
      const owner = plannedUsers.find((u) => u.name === def.owner)!;
      let pool = visible.filter((r) => def.match(imageTags.get(r.id!) ?? [], r));
      if (pool.length < 3) pool = visible;
      const picked = gr.sample(pool, gr.int(Math.min(5, pool.length), Math.min(30, pool.length)));
      if (picked.length === 0) continue;
      const id = galleryRows.length + 1;
      const newest = picked.reduce((a, b) => (a.createdAt!.getTime() > b.createdAt!.getTime() ? a : b));
      const oldest = picked.reduce((a, b) => (a.createdAt!.getTime() < b.createdAt!.getTime() ? a : b));
      const createdAt = new Date(Math.max(oldest.createdAt!.getTime(), owner.createdAt.getTime()) + DAY);
      galleryRows.push({
        id,
        title: def.title,
        description: def.description,
        spoilerWarning: def.spoiler,
        thumbnailId: picked[0]!.id!,
        creatorId: owner.id,
        imageCount: picked.length,
        createdAt: minDate(createdAt, add(end, -DAY)),
        updatedAt: minDate(new Date(Math.max(newest.createdAt!.getTime(), createdAt.getTime()) + DAY), add(end, -1000)),
      });
      picked.forEach((img, position) => galleryItemRows.push({ galleryId: id, imageId: img.id!, position }));
      const subscribers = new Set([owner.id, ...gr.sample(plannedUsers, gr.int(0, 3)).map((u) => u.id)]);
      for (const userId of subscribers) gallerySubRows.push({ galleryId: id, userId });
    }
  }

  return { galleryRows, galleryItemRows, gallerySubRows };
}
