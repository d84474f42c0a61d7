/**
 * The demo's images: kinds, uploaders, tags (one valid rating, implications applied), sources
 * and metadata; the few hidden ones; votes, faves and hides; and the featured image.
 */
import { createHash } from 'node:crypto';
import { cleanTagName } from '../../../grammar/index.js';
import type { DemoKind } from '../../media/demo-images.js';
import type { MediaFormat, MediaMimeType } from '../../media/formats.js';
import { RATING_TAGS } from '../../contexts/tags/categories.js';
import { destructiveSlug } from '../common.js';
import { DEFAULT_MAX_SIDE } from '../files.js';
import { Zipf, mixSeed, type Random } from '../random.js';
import { BODY_TYPES, CHARACTERS, DESCRIPTIONS, FANMADE_CONTENT, GENERAL, OFFICIAL_CONTENT, SPECIES, SPOILERS } from '../vocabulary.js';
import { type Board, DAY, type DemoPlan, type DemoRow, add, fakeIp, fingerprint, minDate } from './board.js';
import type { TagNames } from './tags.js';

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
export type ImagePlan = ReturnType<typeof planImages>;

/** Images with kinds, uploaders, 3–25 tags each (one valid rating, implications applied), sources and metadata. */
export function planImages(b: Board, t: TagNames) {
  const { seed, n, start, end, R, usersBefore } = b;
  const { tagId } = t;
  const ir = R('images');
  const draws = tagDraws(t);

  const imageRows: DemoRow<'images'>[] = [];
  const taggingRows: DemoRow<'imageTaggings'>[] = [];
  const sourceRows: DemoRow<'imageSources'>[] = [];
  const subscriptionRows: DemoRow<'imageSubscriptions'>[] = [];
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

    const { tagList, sourceCount } = drawTags(ir, draws, uploader, kind);
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

/** How an image's tags are drawn: each kind of tag by its own law over the board's names. */
function tagDraws(t: TagNames) {
  const { artistNames, extraOrigin, ocNames, closure } = t;
  return {
    artistNames,
    extraOrigin,
    ocNames,
    closure,
    artistZipf: new Zipf(artistNames.length, 1.05, 1.5),
    characterZipf: new Zipf(CHARACTERS.length, 1.0, 2),
    generalZipf: new Zipf(GENERAL.length, 0.85, 3),
    ocZipf: new Zipf(ocNames.length, 1.0, 1),
    speciesZipf: new Zipf(SPECIES.length, 1.1, 1),
    generalNames: GENERAL.map((g) => cleanTagName(g)),
    comboWeights: RATING_COMBOS.map(([, w]) => w),
  };
}

/**
 * One image's tags (3–25: one valid rating, an artist, characters and the rest, implications
 * applied, then general tags up to a drawn count) and how many sources it gets, drawn in that
 * order from `ir`.
 */
function drawTags(
  ir: Random,
  draws: ReturnType<typeof tagDraws>,
  uploader: { artistTag?: string | null } | null,
  kind: DemoKind,
): { tagList: string[]; sourceCount: number } {
  const { artistNames, extraOrigin, ocNames, closure, artistZipf, characterZipf, generalZipf, ocZipf, speciesZipf, generalNames, comboWeights } = draws;
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
  return { tagList, sourceCount };
}

/** A few merged duplicates and one image deleted for a rule violation; returns the visible images. */
export function hideSome(b: Board, imageRows: DemoRow<'images'>[]): DemoRow<'images'>[] {
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
export function planInteractions(b: Board, img: ImagePlan) {
  const { end, R, plannedUsers } = b;
  const { imageRows, popularity, imageTags } = img;
  const vr = R('votes');
  const faveRows: DemoRow<'imageFaves'>[] = [];
  const voteRows: DemoRow<'imageVotes'>[] = [];
  const hideRows: DemoRow<'imageHides'>[] = [];
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

export function planFeature(b: Board, visible: DemoRow<'images'>[], popularity: Map<number, number>): DemoRow<'imageFeatures'>[] {
  const { end, admin } = b;
  const featureRows: DemoRow<'imageFeatures'>[] = [];
  if (visible.length > 0) {
    const recent = visible.slice(-Math.max(1, Math.ceil(visible.length / 10)));
    const best = recent.reduce((a, b) => (popularity.get(a.id!)! >= popularity.get(b.id!)! ? a : b));
    featureRows.push({ id: 1, imageId: best.id!, userId: admin.id, createdAt: minDate(add(best.createdAt!, DAY), add(end, -1000)) });
  }

  return featureRows;
}
