/**
 * What every part of the demo plan shares: the tables it fills (in the order they are written),
 * the plan's shape, the time span and the accounts, and small helpers for drawing rows.
 */
import {
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
  imageFingerprints,
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
} from '../../db/schema/index.js';
import type { DemoKind } from '../../media/demo-images.js';
import { Random } from '../random.js';
import { DEMO_USERS } from '../vocabulary.js';

export const DEFAULT_NOW = new Date('2025-06-01T00:00:00Z');
export const DAY = 86_400_000;

/**
 * Every table the demo fills, by its key in the plan, in an order that satisfies the foreign keys
 * (the order they are written in).
 */
export const DEMO_TABLES = {
  users,
  badges,
  tags,
  tagImplications,
  dnpEntries,
  userLinks,
  badgeAwards,
  images,
  imageTaggings,
  imageSources,
  imageIntensities,
  imageFingerprints,
  imageFaves,
  imageVotes,
  imageHides,
  imageSubscriptions,
  imageFeatures,
  comments,
  forums,
  topics,
  posts,
  galleries,
  galleryInteractions,
  gallerySubscriptions,
  filters,
} as const;
export type DemoTables = typeof DEMO_TABLES;

export type Row<T extends { $inferInsert: unknown }> = T['$inferInsert'];

/** A row of one of the demo's tables, by its key in the plan. */
export type DemoRow<K extends keyof DemoTables> = Row<DemoTables[K]>;

/** Everything the demo writes, as rows with explicit ids. */
export type DemoPlan = { [K in keyof DemoTables]: DemoRow<K>[] } & {
  /** Images whose files are generated: id, creation date, kind and picture seed. */
  files: Array<{ id: number; createdAt: Date; kind: DemoKind; seed: number }>;
  /** Users with an uploaded avatar: key under the avatar store. */
  avatars: Array<{ userId: number; name: string; key: string }>;
  badgeFiles: Array<{ key: string; title: string; color: string }>;
  tagImageFiles: Array<{ key: string; seed: number }>;
};

export interface PlannedUser {
  id: number;
  name: string;
  role: 'user' | 'assistant' | 'moderator' | 'admin';
  createdAt: Date;
  artistTag?: string;
  weight: number;
}

export const add = (d: Date, ms: number) => new Date(d.getTime() + ms);
export const minDate = (a: Date, b: Date) => (a.getTime() < b.getTime() ? a : b);
export const fakeIp = (rng: Random) => (rng.chance(0.5) ? `203.0.113.${rng.int(1, 254)}` : `198.51.100.${rng.int(1, 254)}`);
export const fingerprint = (rng: Random) => `c${rng.int(100_000_000, 4_294_967_295)}`;

/** What every part of the plan shares: the seed, the time span, and the accounts. */
export interface Board {
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

export function planUsers(seed: number, start: Date): { plannedUsers: PlannedUser[]; ur: Random } {
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

/** How many rows each key has. */
export function countBy<K>(rows: readonly K[], key: (r: K) => number | null | undefined): Map<number, number> {
  const m = new Map<number, number>();
  for (const r of rows) {
    const k = key(r);
    if (k != null) m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}
