/**
 * The demo board as rows, planned in memory from a seed (pure: no I/O). Each part of the board
 * draws from its own seeded stream, so changing one part does not reshuffle the others.
 *
 * Counters (scores, fave and comment counts, tag image counts, user and forum statistics, gallery
 * sizes, filter user counts) are computed from the planned rows at the end, so they always agree
 * with the rows they count.
 */
import { cleanTagName, slugify } from '../../../grammar/index.js';
import { destructiveSlug } from '../common.js';
import { Random } from '../random.js';
import { CHARACTERS, DEMO_USERS } from '../vocabulary.js';
import { planFilters, planProfiles } from './accounts.js';
import { type Board, DAY, DEFAULT_NOW, type DemoPlan, type DemoRow, add, countBy, planUsers } from './board.js';
import { planComments, planForums, planGalleries } from './community.js';
import { hideSome, planFeature, planImages, planInteractions } from './images.js';
import { planTags } from './tags.js';

/** The whole board as rows, from the seed. Pure: no I/O. */
export function planDemoBoard(options: { seed: number; images: number; now?: Date }): DemoPlan {
  const seed = options.seed;
  const end = options.now ?? DEFAULT_NOW;
  const start = add(end, -730 * DAY);
  const { plannedUsers, ur } = planUsers(seed, start);
  const b: Board = {
    seed,
    n: Math.max(0, Math.floor(options.images)),
    start,
    end,
    R: (name) => Random.stream(seed, name),
    plannedUsers,
    staff: plannedUsers.filter((u) => u.role !== 'user'),
    admin: plannedUsers[0]!,
    moderator: plannedUsers[1]!,
    usersBefore: (t) => plannedUsers.filter((u) => u.createdAt.getTime() < t.getTime()),
  };

  const t = planTags(b);
  const { tagRows, tagId, implicationRows, tagImageFiles } = t;
  const img = planImages(b, t);
  const { imageRows, taggingRows, sourceRows, subscriptionRows, files, imageTags, popularity } = img;
  const visible = hideSome(b, imageRows);
  const { faveRows, voteRows, hideRows } = planInteractions(b, img);
  const commentRows = planComments(b, visible, popularity);
  const { forumRows, topicRows, postRows } = planForums(b);
  const { galleryRows, galleryItemRows, gallerySubRows } = planGalleries(b, visible, imageTags);
  const tagIdsOf = (names: readonly string[]) => names.map((name) => tagId.get(name)!).filter((x) => x !== undefined);
  const { filterRows, currentFilter } = planFilters(b, tagIdsOf);
  const { userLinkRows, badgeRows, badgeFiles, awardRows, avatars, dnpRows } = planProfiles(b, tagId);
  const featureRows = planFeature(b, visible, popularity);

  // Counters, from the rows they count.
  const ups = countBy(voteRows.filter((v) => v.up), (v) => v.imageId);
  const downs = countBy(voteRows.filter((v) => !v.up), (v) => v.imageId);
  const faves = countBy(faveRows, (f) => f.imageId);
  const hides = countBy(hideRows, (h) => h.imageId);
  const commentCounts = countBy(commentRows, (c) => c.imageId);
  for (const row of imageRows) {
    const id = row.id!;
    row.upvotesCount = ups.get(id) ?? 0;
    row.downvotesCount = downs.get(id) ?? 0;
    row.score = row.upvotesCount - row.downvotesCount;
    row.favesCount = faves.get(id) ?? 0;
    row.hidesCount = hides.get(id) ?? 0;
    row.commentsCount = commentCounts.get(id) ?? 0;
  }
  const visibleIds = new Set(visible.map((r) => r.id!));
  const tagCounts = countBy(taggingRows.filter((t) => visibleIds.has(t.imageId)), (t) => t.tagId);
  for (const t of tagRows) t.imagesCount = tagCounts.get(t.id!) ?? 0;
  const topicCounts = countBy(topicRows, (t) => t.forumId);
  const forumOfTopic = new Map(topicRows.map((t) => [t.id!, t.forumId]));
  const forumPosts = countBy(postRows, (p) => forumOfTopic.get(p.topicId));
  for (const f of forumRows) {
    f.topicCount = topicCounts.get(f.id!) ?? 0;
    f.postCount = forumPosts.get(f.id!) ?? 0;
  }
  const userImages = countBy(imageRows, (r) => r.userId);
  const userComments = countBy(commentRows, (c) => c.userId);
  const userPosts = countBy(postRows, (p) => p.userId);
  const userTopics = countBy(topicRows, (t) => t.userId);
  const filterUsers = countBy([...currentFilter.values()], (f) => f);
  for (const f of filterRows) f.userCount = filterUsers.get(f.id!) ?? 0;
  const avatarOf = new Map(avatars.map((a) => [a.userId, a.key]));

  const userRows: DemoRow<'users'>[] = plannedUsers.map((u, i) => ({
    id: u.id,
    name: u.name,
    slug: slugify(u.name),
    email: `${destructiveSlug(u.name)}@example.com`,
    role: u.role,
    description: DEMO_USERS[i]!.description,
    avatar: avatarOf.get(u.id) ?? null,
    verified: u.artistTag !== undefined && u.name !== 'Paper Lantern',
    imagesCount: userImages.get(u.id) ?? 0,
    commentsCount: userComments.get(u.id) ?? 0,
    postsCount: userPosts.get(u.id) ?? 0,
    topicsCount: userTopics.get(u.id) ?? 0,
    currentFilterId: currentFilter.get(u.id) ?? 1,
    watchedTagIds: u.artistTag ? [] : tagIdsOf(ur.sample(CHARACTERS.map(cleanTagName), 2)),
    confirmedAt: u.createdAt,
    createdAt: u.createdAt,
    updatedAt: u.createdAt,
  }));

  return {
    users: userRows,
    badges: badgeRows,
    badgeAwards: awardRows,
    userLinks: userLinkRows,
    tags: tagRows,
    tagImplications: implicationRows,
    dnpEntries: dnpRows,
    images: imageRows,
    imageTaggings: taggingRows,
    imageSources: sourceRows,
    imageIntensities: [],
    imageFingerprints: [],
    imageFaves: faveRows,
    imageVotes: voteRows,
    imageHides: hideRows,
    imageSubscriptions: subscriptionRows,
    imageFeatures: featureRows,
    comments: commentRows,
    forums: forumRows,
    topics: topicRows,
    posts: postRows,
    galleries: galleryRows,
    galleryInteractions: galleryItemRows,
    gallerySubscriptions: gallerySubRows,
    filters: filterRows,
    files,
    avatars,
    badgeFiles,
    tagImageFiles,
  };
}
