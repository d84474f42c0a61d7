/**
 * The demo board as rows, planned in memory from a seed (pure: no I/O). Each part of the board
 * draws from its own seeded stream, so changing one part does not reshuffle the others.
 *
 * Counters (scores, fave and comment counts, tag image counts, user and forum statistics, gallery
 * sizes, filter user counts) are computed from the planned rows at the end, so they always agree
 * with the rows they count.
 */
import { createHash } from 'node:crypto';
import { cleanTagName, slugify, splitNamespace } from '../../grammar/index.js';
import type {
  badgeAwards,
  badges,
  comments,
  dnpEntries,
  filters,
  forums,
  galleries,
  galleryInteractions,
  gallerySubscriptions,
  imageFaves,
  imageFeatures,
  imageHides,
  imageIntensities,
  imageSources,
  imageSubscriptions,
  imageTaggings,
  imageVotes,
  images,
  posts,
  tagImplications,
  tags,
  topics,
  userLinks,
  users,
  TagCategory,
} from '../db/schema/index.js';
import type { DemoKind } from '../media/demo-images.js';
import type { MediaFormat, MediaMimeType } from '../media/formats.js';
import { RATING_TAGS, categoryFor } from '../contexts/tags/categories.js';
import { destructiveSlug } from './common.js';
import { DEFAULT_MAX_SIDE } from './files.js';
import { Random, Zipf, mixSeed } from './random.js';
import {
  ALIASES,
  BODY_TYPES,
  CHARACTERS,
  COMMENTS,
  DEMO_USERS,
  DESCRIPTIONS,
  ERROR_TAGS,
  FANMADE_CONTENT,
  FIXED_CATEGORIES,
  GENERAL,
  IMPLICATIONS,
  OFFICIAL_CONTENT,
  POSTS,
  SPECIES,
  SPOILERS,
  TOPICS,
  inventName,
} from './vocabulary.js';

export const DEFAULT_NOW = new Date('2025-06-01T00:00:00Z');
const DAY = 86_400_000;

/** The system filters every board has, in id order (reference §5.8). */
export const SYSTEM_FILTERS = [
  {
    name: 'Default',
    description: 'The site default filter: hides explicit and grotesque images and spoilers questionable ones.',
    hidden: ['explicit', 'grotesque'],
    spoilered: ['questionable'],
  },
  { name: 'Everything', description: 'This filter will not hide or spoiler anything.', hidden: [], spoilered: [] },
] as const;

/** Short descriptions of the rating tags. */
export const RATING_DESCRIPTIONS: Record<(typeof RATING_TAGS)[number], string> = {
  safe: 'Images with no sexual content, gore or otherwise disturbing content.',
  suggestive: 'Images that are sexually suggestive but not explicit.',
  questionable: 'Images with nudity or sexual themes that stop short of explicit.',
  explicit: 'Images with explicit sexual content.',
  'semi-grimdark': 'Mildly dark or unsettling images, with mild violence or injury.',
  grimdark: 'Dark, disturbing or violent images.',
  grotesque: 'Gross images: gore, bodily fluids and the like.',
};

/** Valid rating combinations and how often each is drawn. */
const RATING_COMBOS: ReadonlyArray<readonly [readonly string[], number]> = [
  [['safe'], 58],
  [['suggestive'], 14],
  [['questionable'], 7],
  [['explicit'], 6],
  [['semi-grimdark'], 4],
  [['grimdark'], 2],
  [['grotesque'], 1],
  [['suggestive', 'semi-grimdark'], 3],
  [['questionable', 'grimdark'], 1.5],
  [['semi-grimdark', 'grotesque'], 1],
  [['explicit', 'grotesque'], 0.5],
];

const KINDS: readonly DemoKind[] = ['png', 'jpeg', 'gif', 'svg'];
/** GIFs are the slowest to process; a few make the point. */
const KIND_WEIGHTS = [55, 36, 2, 7];

const FORMAT_OF: Record<DemoKind, { format: MediaFormat; mime: MediaMimeType }> = {
  png: { format: 'png', mime: 'image/png' },
  jpeg: { format: 'jpg', mime: 'image/jpeg' },
  gif: { format: 'gif', mime: 'image/gif' },
  svg: { format: 'svg', mime: 'image/svg+xml' },
};

export type Row<T extends { $inferInsert: unknown }> = T['$inferInsert'];

/** Everything the demo writes, as rows with explicit ids. */
export interface DemoPlan {
  users: Row<typeof users>[];
  badges: Row<typeof badges>[];
  badgeAwards: Row<typeof badgeAwards>[];
  userLinks: Row<typeof userLinks>[];
  tags: Row<typeof tags>[];
  tagImplications: Row<typeof tagImplications>[];
  dnpEntries: Row<typeof dnpEntries>[];
  images: Row<typeof images>[];
  imageTaggings: Row<typeof imageTaggings>[];
  imageSources: Row<typeof imageSources>[];
  imageIntensities: Row<typeof imageIntensities>[];
  imageFaves: Row<typeof imageFaves>[];
  imageVotes: Row<typeof imageVotes>[];
  imageHides: Row<typeof imageHides>[];
  imageSubscriptions: Row<typeof imageSubscriptions>[];
  imageFeatures: Row<typeof imageFeatures>[];
  comments: Row<typeof comments>[];
  forums: Row<typeof forums>[];
  topics: Row<typeof topics>[];
  posts: Row<typeof posts>[];
  galleries: Row<typeof galleries>[];
  galleryInteractions: Row<typeof galleryInteractions>[];
  gallerySubscriptions: Row<typeof gallerySubscriptions>[];
  filters: Row<typeof filters>[];
  /** Images whose files are generated: id, creation date, kind and picture seed. */
  files: Array<{ id: number; createdAt: Date; kind: DemoKind; seed: number }>;
  /** Users with an uploaded avatar: key under the avatar store. */
  avatars: Array<{ userId: number; name: string; key: string }>;
  badgeFiles: Array<{ key: string; title: string; color: string }>;
  tagImageFiles: Array<{ key: string; seed: number }>;
}

interface PlannedUser {
  id: number;
  name: string;
  role: 'user' | 'assistant' | 'moderator' | 'admin';
  createdAt: Date;
  artistTag?: string;
  weight: number;
}

const add = (d: Date, ms: number) => new Date(d.getTime() + ms);
const minDate = (a: Date, b: Date) => (a.getTime() < b.getTime() ? a : b);
const fakeIp = (rng: Random) => (rng.chance(0.5) ? `203.0.113.${rng.int(1, 254)}` : `198.51.100.${rng.int(1, 254)}`);
const fingerprint = (rng: Random) => `c${rng.int(100_000_000, 4_294_967_295)}`;

/** What every part of the plan shares: the seed, the time span, and the accounts. */
interface Board {
  seed: number;
  /** Number of images. */
  n: number;
  start: Date;
  end: Date;
  R: (stream: string) => Random;
  plannedUsers: PlannedUser[];
  staff: PlannedUser[];
  admin: PlannedUser;
  moderator: PlannedUser;
  usersBefore: (t: Date) => PlannedUser[];
}

type TagNames = ReturnType<typeof planTags>;
type ImagePlan = ReturnType<typeof planImages>;

function planUsers(seed: number, start: Date): { plannedUsers: PlannedUser[]; ur: Random } {
  const ur = Random.stream(seed, 'users');
  const plannedUsers: PlannedUser[] = DEMO_USERS.map((u, i) => ({
    id: i + 1,
    name: u.name,
    role: u.role,
    createdAt: i < 3 ? add(start, -(300 - i * 10) * DAY - ur.int(0, DAY)) : ur.date(add(start, -200 * DAY), add(start, 400 * DAY)),
    artistTag: u.artist === undefined ? undefined : `artist:${u.artist}`,
    weight: u.artist !== undefined ? 6 : i < 3 ? 1.5 : 1,
  }));
  return { plannedUsers, ur };
}

/** Tags of every category (ratings first, so `safe` is tag 1), aliases, implications and their closure. */
function planTags(b: Board) {
  const { seed, n, start, R, plannedUsers } = b;
  const tr = R('tags');
  const artistNames: string[] = [];
  const seenNames = new Set<string>();
  const uniqueName = (name: string): string | null => {
    const clean = cleanTagName(name);
    if (clean === '' || seenNames.has(clean)) return null;
    seenNames.add(clean);
    return clean;
  };
  const fixedNames: string[] = [];
  const pushFixed = (list: readonly string[]) => {
    for (const name of list) {
      const clean = uniqueName(name);
      if (clean) fixedNames.push(clean);
    }
  };
  pushFixed(RATING_TAGS);
  pushFixed(CHARACTERS);
  pushFixed(SPECIES);
  pushFixed(BODY_TYPES);
  pushFixed(ERROR_TAGS);
  pushFixed(OFFICIAL_CONTENT);
  pushFixed(['oc', 'oc only']);
  pushFixed(SPOILERS);
  pushFixed(FANMADE_CONTENT);
  pushFixed(GENERAL);
  for (const u of plannedUsers) if (u.artistTag) pushFixedArtist(u.artistTag);
  function pushFixedArtist(name: string) {
    const clean = uniqueName(name);
    if (clean) {
      fixedNames.push(clean);
      artistNames.push(clean);
    }
  }
  const artistCount = Math.max(12, Math.round(n / 25));
  while (artistNames.length < artistCount) pushFixedArtist(`artist:${inventName(tr, '_')}`);
  const extraOrigin: string[] = [];
  for (const ns of ['colorist', 'colorist', 'colorist', 'editor', 'editor', 'photographer']) {
    const clean = uniqueName(`${ns}:${inventName(tr, '_')}`);
    if (clean) {
      fixedNames.push(clean);
      extraOrigin.push(clean);
    }
  }
  const ocNames: string[] = [];
  const ocCount = Math.max(5, Math.round(n / 50));
  while (ocNames.length < ocCount) {
    const clean = uniqueName(`oc:${inventName(tr, ' ')}`);
    if (clean) {
      fixedNames.push(clean);
      ocNames.push(clean);
    }
  }
  const aliasNames: Array<[string, string]> = [];
  for (const [alias, target] of ALIASES) {
    const clean = uniqueName(alias);
    if (clean) aliasNames.push([clean, cleanTagName(target)]);
  }

  const fixedCategory = new Map<string, TagCategory>();
  for (const [list, category] of FIXED_CATEGORIES) for (const name of list) fixedCategory.set(cleanTagName(name), category);

  const tagRows: Row<typeof tags>[] = [];
  const tagId = new Map<string, number>();
  const tagCreated = add(start, -365 * DAY);
  const newTag = (name: string, aliasedTagId: number | null = null): Row<typeof tags> => {
    const { namespace, nameInNamespace } = splitNamespace(name);
    const id = tagRows.length + 1;
    const category = aliasedTagId === null ? (fixedCategory.get(name) ?? categoryFor(name, namespace)) : null;
    const row: Row<typeof tags> = {
      id,
      name,
      slug: slugify(name),
      namespace,
      nameInNamespace,
      category,
      description: '',
      shortDescription: '',
      imagesCount: 0,
      aliasedTagId,
      createdAt: add(tagCreated, id * 60_000),
      updatedAt: add(tagCreated, id * 60_000),
    };
    tagRows.push(row);
    tagId.set(name, id);
    return row;
  };
  for (const name of fixedNames) newTag(name);
  for (const [alias, target] of aliasNames) newTag(alias, tagId.get(target) ?? null);
  for (const row of tagRows) {
    if (row.name in RATING_DESCRIPTIONS) {
      row.shortDescription = RATING_DESCRIPTIONS[row.name as keyof typeof RATING_DESCRIPTIONS];
      row.description = row.shortDescription;
    } else if (row.category === 'character') {
      row.shortDescription = `The character ${row.name.replace(/\b\w/g, (c) => c.toUpperCase())}.`;
    } else if (row.namespace === 'artist') {
      row.shortDescription = `Art by ${row.nameInNamespace}.`;
    } else if (row.category === 'spoiler') {
      row.shortDescription = 'Contains spoilers; filter it out if you have not caught up.';
    }
  }
  const tagImageFiles: DemoPlan['tagImageFiles'] = [];
  for (const name of ['spoiler:s09e26', 'grimdark']) {
    const row = tagRows.find((t) => t.name === name);
    if (!row) continue;
    row.image = `${row.slug.replace(/[^a-z0-9]+/g, '-')}.png`;
    tagImageFiles.push({ key: row.image, seed: mixSeed(seed, row.id!) });
  }

  const implicationRows: Row<typeof tagImplications>[] = [];
  const impliedBy = new Map<string, string[]>();
  for (const [name, implied] of IMPLICATIONS) {
    const from = tagId.get(cleanTagName(name));
    if (from === undefined) continue;
    for (const target of implied) {
      const to = tagId.get(cleanTagName(target));
      if (to === undefined) continue;
      implicationRows.push({ tagId: from, impliedTagId: to });
      const list = impliedBy.get(cleanTagName(name)) ?? [];
      list.push(cleanTagName(target));
      impliedBy.set(cleanTagName(name), list);
    }
  }
  /** Everything a tag list implies, transitively (the board is as if every tagging had been kept up to date). */
  const closure = (names: string[]): string[] => {
    const out = [...names];
    const seen = new Set(out);
    for (let i = 0; i < out.length; i++) {
      for (const implied of impliedBy.get(out[i]!) ?? []) {
        if (!seen.has(implied)) {
          seen.add(implied);
          out.push(implied);
        }
      }
    }
    return out;
  };

  return { tagRows, tagId, artistNames, extraOrigin, ocNames, implicationRows, closure, tagImageFiles };
}

/** Images with kinds, uploaders, 3–25 tags each (one valid rating, implications applied), sources and metadata. */
function planImages(b: Board, t: TagNames) {
  const { seed, n, start, end, R, usersBefore } = b;
  const { artistNames, extraOrigin, ocNames, closure, tagId } = t;
  const ir = R('images');
  const artistZipf = new Zipf(artistNames.length, 1.05, 1.5);
  const characterZipf = new Zipf(CHARACTERS.length, 1.0, 2);
  const generalZipf = new Zipf(GENERAL.length, 0.85, 3);
  const ocZipf = new Zipf(ocNames.length, 1.0, 1);
  const speciesZipf = new Zipf(SPECIES.length, 1.1, 1);
  const generalNames = GENERAL.map((g) => cleanTagName(g));
  const comboWeights = RATING_COMBOS.map(([, w]) => w);

  const imageRows: Row<typeof images>[] = [];
  const taggingRows: Row<typeof imageTaggings>[] = [];
  const sourceRows: Row<typeof imageSources>[] = [];
  const subscriptionRows: Row<typeof imageSubscriptions>[] = [];
  const files: DemoPlan['files'] = [];
  const imageTags = new Map<number, string[]>();
  const popularity = new Map<number, number>();
  const span = end.getTime() - 2 * DAY - start.getTime();

  for (let i = 0; i < n; i++) {
    const id = i + 1;
    const createdAt = new Date(start.getTime() + Math.floor(((i + ir.float() * 0.9) / Math.max(n, 1)) * span));
    // The first four images show one of each kind, so that even a tiny board has them all.
    const drawn = ir.weighted(KINDS, KIND_WEIGHTS);
    const kind = i < KINDS.length ? KINDS[i]! : drawn;
    const eligible = usersBefore(createdAt);
    const uploaderDraw = ir.float();
    // Images 2 and 3 are always an anonymous upload and one without a user, so that even a tiny
    // board shows both.
    const noUser = uploaderDraw < 0.05 || eligible.length === 0 || id === 3;
    const uploader = noUser ? null : ir.weighted(eligible, eligible.map((u) => u.weight));
    const anonymous = uploader !== null && (ir.chance(0.1) || id === 2);

    const names: string[] = [];
    const addName = (name: string) => {
      if (!names.includes(name)) names.push(name);
    };
    for (const r of ir.weighted(RATING_COMBOS, comboWeights)[0]) addName(r);
    const artistDraw = ir.float();
    if (artistDraw < 0.9) {
      const own = uploader?.artistTag && ir.chance(0.75) ? uploader.artistTag : undefined;
      addName(own ?? artistNames[artistZipf.draw(ir)]!);
      if (ir.chance(0.06)) addName(artistNames[artistZipf.draw(ir)]!);
      if (ir.chance(0.04)) addName(ir.pick(extraOrigin));
    } else {
      addName('artist needed');
    }
    const characterCount = ir.weighted([0, 1, 2, 3], [25, 45, 20, 10]);
    for (let c = 0; c < characterCount; c++) addName(cleanTagName(CHARACTERS[characterZipf.draw(ir)]!));
    if (ir.chance(0.12)) {
      addName(ocNames[ocZipf.draw(ir)]!);
      addName('oc');
      if (characterCount === 0 && ir.chance(0.5)) addName('oc only');
    }
    if (ir.chance(0.12)) addName(cleanTagName(SPECIES[speciesZipf.draw(ir)]!));
    if (ir.chance(0.1)) addName(ir.pick(BODY_TYPES));
    if (ir.chance(0.03)) addName(ir.pick(OFFICIAL_CONTENT));
    if (ir.chance(0.04)) addName(cleanTagName(ir.pick(FANMADE_CONTENT)));
    if (ir.chance(0.03)) addName(ir.pick(SPOILERS));
    if (kind === 'gif') addName('animated');
    if (kind === 'svg') addName('vector');
    const sourceCount = ir.weighted([0, 1, 2], [35, 55, 10]);
    if (sourceCount === 0 && ir.chance(0.1)) addName('source needed');

    const tagList = closure(names);
    const target = Math.min(25, Math.max(3, 3 + Math.floor(22 * Math.pow(ir.float(), 2.2))));
    for (let attempt = 0; tagList.length < target && attempt < 60; attempt++) {
      const extra = closure([generalNames[generalZipf.draw(ir)]!]).filter((t) => !tagList.includes(t));
      if (extra.length > 0 && tagList.length + extra.length <= 25) tagList.push(...extra);
    }
    tagList.splice(25);
    imageTags.set(id, tagList);
    tagList.forEach((name, position) => taggingRows.push({ imageId: id, tagId: tagId.get(name)!, position }));

    const artist = tagList.find((t) => t.startsWith('artist:'))?.slice('artist:'.length) ?? 'someone';
    const sites = [
      () => `https://www.deviantart.com/${artist}/art/${destructiveSlug(ir.pick(GENERAL))}-${ir.int(100_000_000, 999_999_999)}`,
      () => `https://twitter.com/${artist}/status/${ir.int(1_000_000_000, 1_999_999_999)}${ir.int(100_000_000, 999_999_999)}`,
      () => `https://${artist.replace(/_/g, '-')}.tumblr.com/post/${ir.int(100_000_000, 999_999_999)}`,
    ];
    for (let s = 0; s < sourceCount; s++) {
      const source = ir.pick(sites)();
      if (!sourceRows.some((r) => r.imageId === id && r.source === source)) sourceRows.push({ imageId: id, source, position: s });
    }

    const seedOfPicture = mixSeed(seed, 0x1000_0000 + id);
    files.push({ id, createdAt, kind, seed: seedOfPicture });
    const { format, mime } = FORMAT_OF[kind];
    const width = kind === 'gif' ? ir.int(160, 480) : ir.int(300, DEFAULT_MAX_SIDE);
    const height = kind === 'gif' ? ir.int(160, 480) : ir.int(300, DEFAULT_MAX_SIDE);
    const size = ir.int(20_000, 1_500_000);
    const sha = createHash('sha512').update(`demo:${seed}:${id}`).digest('hex');
    imageRows.push({
      id,
      userId: uploader?.id ?? null,
      anonymous,
      ip: fakeIp(ir),
      fingerprint: fingerprint(ir),
      imageName: `${destructiveSlug(tagList.find((t) => !RATING_TAGS.includes(t as never) && !t.includes(':')) ?? 'image')}_${id}.${format}`,
      imageWidth: width,
      imageHeight: height,
      imageSize: size,
      imageOrigSize: size,
      imageFormat: format,
      imageMimeType: mime,
      imageAspectRatio: width / height,
      imageDuration: kind === 'gif' ? 0.6 : 0,
      isAnimated: kind === 'gif',
      imageSha512Hash: sha,
      imageOrigSha512Hash: sha,
      storageKey: null,
      description: ir.chance(0.4) ? ir.pick(DESCRIPTIONS) : '',
      approved: true,
      hiddenFromUsers: false,
      deletionReason: null,
      duplicateId: null,
      processed: true,
      thumbnailsGenerated: true,
      duplicationChecked: true,
      firstSeenAt: createdAt,
      createdAt,
      updatedAt: createdAt,
    });
    if (uploader) subscriptionRows.push({ imageId: id, userId: uploader.id, createdAt });
    popularity.set(id, Math.pow(ir.float(), 3));
  }

  return { imageRows, taggingRows, sourceRows, subscriptionRows, files, imageTags, popularity };
}

/** A few merged duplicates and one image deleted for a rule violation; returns the visible images. */
function hideSome(b: Board, imageRows: Row<typeof images>[]): Row<typeof images>[] {
  const { n, R, moderator } = b;
  // The newest images stay visible, so that the front page looks alive.
  const hr = R('hidden');
  const mergedCount = n >= 10 ? Math.max(2, Math.round(n / 250)) : 0;
  const candidates = imageRows.slice(1, Math.max(1, n - 5));
  const hiddenIds = new Set<number>();
  for (const row of hr.sample(candidates, mergedCount + (n >= 10 ? 1 : 0))) hiddenIds.add(row.id!);
  let deletedDone = false;
  for (const row of imageRows) {
    if (!hiddenIds.has(row.id!)) continue;
    row.hiddenFromUsers = true;
    row.updatedAt = add(row.createdAt!, hr.int(1, 48) * 3_600_000);
    if (!deletedDone) {
      deletedDone = true;
      row.deletionReason = 'Rule #3: not on-topic for this site.';
      row.deletedById = moderator.id;
    } else {
      const target = hr.pick(imageRows.filter((r) => r.id! < row.id! && !hiddenIds.has(r.id!)));
      row.duplicateId = target.id!;
    }
  }
  return imageRows.filter((r) => !r.hiddenFromUsers);
}

/** Votes, faves (always with an upvote) and hides, more for popular images. */
function planInteractions(b: Board, img: ImagePlan) {
  const { end, R, plannedUsers } = b;
  const { imageRows, popularity, imageTags } = img;
  const vr = R('votes');
  const faveRows: Row<typeof imageFaves>[] = [];
  const voteRows: Row<typeof imageVotes>[] = [];
  const hideRows: Row<typeof imageHides>[] = [];
  for (const row of imageRows) {
    const pop = popularity.get(row.id!)!;
    const mature = (imageTags.get(row.id!) ?? []).some((t) => t === 'explicit' || t === 'grotesque' || t === 'grimdark');
    const last = end.getTime() - 1;
    for (const u of plannedUsers) {
      if (u.id === row.userId || u.createdAt.getTime() > last) continue;
      const from = new Date(Math.max(row.createdAt!.getTime(), u.createdAt.getTime()));
      const when = () => vr.date(from, new Date(last));
      const draw = vr.float();
      if (draw < 0.02 + 0.5 * pop) {
        const at = when();
        voteRows.push({ imageId: row.id!, userId: u.id, up: true, createdAt: at });
        if (vr.chance(0.45)) faveRows.push({ imageId: row.id!, userId: u.id, createdAt: at });
      } else if (draw < 0.02 + 0.5 * pop + 0.012 + 0.04 * (1 - pop)) {
        voteRows.push({ imageId: row.id!, userId: u.id, up: false, createdAt: when() });
        if (vr.chance(0.3)) hideRows.push({ imageId: row.id!, userId: u.id, createdAt: when() });
      } else if (vr.chance(mature ? 0.02 : 0.003)) {
        hideRows.push({ imageId: row.id!, userId: u.id, createdAt: when() });
      }
    }
  }

  return { faveRows, voteRows, hideRows };
}

function planComments(b: Board, visible: Row<typeof images>[], popularity: Map<number, number>): Row<typeof comments>[] {
  const { n, end, R, usersBefore, moderator } = b;
  const cr = R('comments');
  const plannedComments: Array<Omit<Row<typeof comments>, 'id'>> = [];
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
  const commentRows: Row<typeof comments>[] = plannedComments.map((c, i) => ({ ...c, id: i + 1 }));
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
function planForums(b: Board) {
  const { start, end, R, staff, admin, moderator, usersBefore } = b;
  const fr = R('forums');
  const forumDefs = [
    { key: 'general', name: 'General Discussion', shortName: 'dis', description: 'Anything goes, within the rules.', accessLevel: 'normal' },
    { key: 'art', name: 'Art Chat', shortName: 'art', description: 'Discuss art, techniques and your own work.', accessLevel: 'normal' },
    { key: 'meta', name: 'Site and Policy', shortName: 'meta', description: 'Questions and suggestions about the site.', accessLevel: 'normal' },
    { key: 'staff', name: 'Staff Room', shortName: 'staff', description: 'For staff only.', accessLevel: 'staff' },
  ] as const;
  const forumRows: Row<typeof forums>[] = forumDefs.map((f, i) => ({
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
  const topicRows: Row<typeof topics>[] = [];
  const plannedPosts: Array<Omit<Row<typeof posts>, 'id'>> = [];
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
  const postRows: Row<typeof posts>[] = postOrder.map(({ p }, i) => ({ ...p, id: i + 1 }));
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

function planGalleries(b: Board, visible: Row<typeof images>[], imageTags: Map<number, string[]>) {
  const { end, R, plannedUsers } = b;
  const gr = R('galleries');
  const galleryDefs: Array<{ owner: string; title: string; description: string; spoiler: string; match: (tags: string[], row: Row<typeof images>) => boolean }> = [
    { owner: 'Willow Wisp', title: 'Cozy Corner', description: 'Warm, quiet pictures for rainy days.', spoiler: '', match: (t) => t.includes('safe') && (t.includes('smiling') || t.includes('cute')) },
    { owner: 'Night Owl', title: 'Princess of the Night', description: 'Everything Luna.', spoiler: '', match: (t) => t.includes('princess luna') || t.includes('night') },
    { owner: 'Rusty Gears', title: 'Background Ponies', description: 'The unsung heroes of every crowd scene.', spoiler: '', match: (t) => t.includes('derpy hooves') || t.includes('lyra heartstrings') || t.includes('bon bon') || t.includes('oc') },
    { owner: 'Copper Kettle', title: 'Pastel Dreams', description: 'Soft colours only.', spoiler: '', match: (t) => t.includes('safe') && t.includes('simple background') },
    { owner: 'Brushstroke', title: 'My Best Work', description: 'A selection of my favourite pieces.', spoiler: '', match: (t) => t.includes('artist:brushstroke') },
    { owner: 'Indigo Sky', title: 'Starry Nights', description: 'Stars, moons and night skies.', spoiler: 'Some of these are a little dark.', match: (t) => t.includes('stars') || t.includes('moon') || t.includes('grimdark') },
  ];
  const galleryRows: Row<typeof galleries>[] = [];
  const galleryItemRows: Row<typeof galleryInteractions>[] = [];
  const gallerySubRows: Row<typeof gallerySubscriptions>[] = [];
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

/** The system filters first, then public and private user filters, and which filter each user uses. */
function planFilters(b: Board, tagIdsOf: (names: readonly string[]) => number[]) {
  const { start, R, plannedUsers } = b;
  const filterRows: Row<typeof filters>[] = SYSTEM_FILTERS.map((f, i) => ({
    id: i + 1,
    name: f.name,
    description: f.description,
    system: true,
    public: false,
    userId: null,
    userCount: 0,
    hiddenTagIds: tagIdsOf(f.hidden),
    spoileredTagIds: tagIdsOf(f.spoilered),
    hiddenComplexStr: '',
    spoileredComplexStr: '',
    createdAt: add(start, -300 * DAY),
    updatedAt: add(start, -300 * DAY),
  }));
  const userFilter = (owner: string, name: string, f: Partial<Row<typeof filters>> & { hidden?: string[]; spoilered?: string[] }) => {
    const user = plannedUsers.find((u) => u.name === owner)!;
    const created = add(user.createdAt, 3 * DAY);
    filterRows.push({
      id: filterRows.length + 1,
      name,
      description: f.description ?? '',
      system: false,
      public: f.public ?? false,
      userId: user.id,
      userCount: 0,
      hiddenTagIds: tagIdsOf(f.hidden ?? []),
      spoileredTagIds: tagIdsOf(f.spoilered ?? []),
      hiddenComplexStr: f.hiddenComplexStr ?? '',
      spoileredComplexStr: f.spoileredComplexStr ?? '',
      createdAt: created,
      updatedAt: created,
    });
  };
  userFilter('Helping Hoof', 'Safe Only', {
    public: true,
    description: 'Shows only images rated safe.',
    hiddenComplexStr: '-safe',
  });
  userFilter('Night Owl', 'No Grimdark', {
    public: true,
    description: 'Hides the dark stuff, spoilers the unpopular stuff.',
    hidden: ['semi-grimdark', 'grimdark', 'grotesque'],
    spoileredComplexStr: 'score.lt:0 || downvotes.gt:5',
  });
  userFilter('Copper Kettle', 'Cozy Browsing', {
    description: 'My everyday filter.',
    hidden: ['explicit', 'questionable', 'grotesque', 'grimdark'],
    spoilered: ['suggestive'],
    hiddenComplexStr: 'sad || frown\n(rain, night), -happy',
    spoileredComplexStr: '(spoiler:s09e26 || spoiler:the movie)',
  });
  userFilter('Brushstroke', 'Sourced art only', {
    description: 'Hides images without an artist or a source.',
    hiddenComplexStr: 'artist needed || source needed || source_count:0',
    spoileredComplexStr: 'wilson_score.lt:0.2, faves.lt:2',
  });
  const ownFilter = new Map(filterRows.filter((f) => f.userId != null).map((f) => [f.userId!, f.id!]));
  const currentFilter = new Map<number, number>();
  const fir = R('filter-choice');
  for (const u of plannedUsers) {
    const own = ownFilter.get(u.id);
    currentFilter.set(u.id, own ?? (u.role !== 'user' || fir.chance(0.3) ? 2 : 1));
  }
  const anyoneUses = filterRows.find((f) => f.name === 'No Grimdark');
  const fan = plannedUsers.find((u) => u.name === 'Starry Eyes');
  if (anyoneUses && fan) currentFilter.set(fan.id, anyoneUses.id!);

  return { filterRows, currentFilter };
}

/** Links to artist tags, badges and their awards, uploaded avatars and a do-not-post entry. */
function planProfiles(b: Board, tagId: Map<string, number>) {
  const { start, R, plannedUsers } = b;
  const lr = R('links');
  const userLinkRows: Row<typeof userLinks>[] = [];
  for (const u of plannedUsers) {
    if (!u.artistTag) continue;
    const verified = u.name !== 'Paper Lantern';
    userLinkRows.push({
      id: userLinkRows.length + 1,
      userId: u.id,
      tagId: verified ? tagId.get(u.artistTag)! : null,
      uri: `https://www.deviantart.com/${u.artistTag.slice('artist:'.length).replace(/_/g, '-')}`,
      state: verified ? 'verified' : 'unverified',
      public: true,
      createdAt: add(u.createdAt, lr.int(1, 20) * DAY),
    });
  }
  const echo = plannedUsers.find((u) => u.name === 'Echo Vale');
  if (echo) {
    userLinkRows.push({
      id: userLinkRows.length + 1,
      userId: echo.id,
      tagId: null,
      uri: 'https://echo-vale.example.org/portfolio',
      state: 'link_verified',
      public: false,
      createdAt: add(echo.createdAt, 30 * DAY),
    });
  }
  const badgeDefs = [
    { title: 'Artist', description: 'Verified artist on this site.', color: '#e2498a' },
    { title: 'Site Staff', description: 'Keeps the lights on.', color: '#2b6fd6' },
    { title: 'Supporter', description: 'Helped pay for the servers.', color: '#ffd166' },
    { title: 'Bug Hunter', description: 'Reported a real bug.', color: '#1fa774' },
  ];
  const badgeRows: Row<typeof badges>[] = badgeDefs.map((b, i) => ({
    id: i + 1,
    title: b.title,
    description: b.description,
    image: `${destructiveSlug(b.title)}.svg`,
    createdAt: add(start, -300 * DAY),
  }));
  const badgeFiles = badgeDefs.map((b, i) => ({ key: badgeRows[i]!.image, title: b.title, color: b.color }));
  const awardRows: Row<typeof badgeAwards>[] = [];
  const award = (userId: number, badgeId: number, label: string, at: Date) =>
    awardRows.push({ id: awardRows.length + 1, badgeId, userId, label, awardedOn: at });
  for (const u of plannedUsers) {
    if (u.artistTag && u.name !== 'Paper Lantern') award(u.id, 1, `Artist of ${u.artistTag}`, add(u.createdAt, 40 * DAY));
    if (u.role !== 'user') award(u.id, 2, u.role === 'admin' ? 'Administrator' : u.role === 'moderator' ? 'Moderator' : 'Assistant', add(u.createdAt, DAY));
  }
  for (const u of lr.sample(plannedUsers.slice(3), 5)) award(u.id, 3, '', add(u.createdAt, lr.int(10, 200) * DAY));
  for (const u of lr.sample(plannedUsers, 2)) award(u.id, 4, 'Found the search bug', add(u.createdAt, lr.int(10, 200) * DAY));
  const avatarUsers = plannedUsers.filter((u) => u.artistTag !== undefined || u.role !== 'user').slice(0, 6);
  const avatars = avatarUsers.map((u) => ({ userId: u.id, name: u.name, key: `${u.id}-${destructiveSlug(u.name)}.png` }));

  const dnpRows: Row<typeof dnpEntries>[] = [];
  const velvet = tagId.get('artist:velvet_ink');
  if (velvet !== undefined) {
    dnpRows.push({
      id: 1,
      tagId: velvet,
      dnpType: 'With Permission Only',
      conditions: 'Ask me first, then post with a link to my gallery.',
      reason: 'I want to keep track of where my art goes.',
      hideReason: false,
      state: 'listed',
      createdAt: add(start, 30 * DAY),
      updatedAt: add(start, 30 * DAY),
    });
  }

  return { userLinkRows, badgeRows, badgeFiles, awardRows, avatars, dnpRows };
}

function planFeature(b: Board, visible: Row<typeof images>[], popularity: Map<number, number>): Row<typeof imageFeatures>[] {
  const { end, admin } = b;
  const featureRows: Row<typeof imageFeatures>[] = [];
  if (visible.length > 0) {
    const recent = visible.slice(-Math.max(1, Math.ceil(visible.length / 10)));
    const best = recent.reduce((a, b) => (popularity.get(a.id!)! >= popularity.get(b.id!)! ? a : b));
    featureRows.push({ id: 1, imageId: best.id!, userId: admin.id, createdAt: minDate(add(best.createdAt!, DAY), add(end, -1000)) });
  }

  return featureRows;
}

/** How many rows each key has. */
function countBy<K>(rows: readonly K[], key: (r: K) => number | null | undefined): Map<number, number> {
  const m = new Map<number, number>();
  for (const r of rows) {
    const k = key(r);
    if (k != null) m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

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

  const userRows: Row<typeof users>[] = plannedUsers.map((u, i) => ({
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
