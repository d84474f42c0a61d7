/**
 * The demo's filters (the system ones first, then users' public and private ones) and profiles:
 * artist links, badges and awards, uploaded avatars and a do-not-post entry.
 */
import { destructiveSlug } from '../common.js';
import { type Board, DAY, type DemoRow, add } from './board.js';

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
/** The system filters first, then public and private user filters, and which filter each user uses. */
export function planFilters(b: Board, tagIdsOf: (names: readonly string[]) => number[]) {
  const { start, R, plannedUsers } = b;
  const filterRows: DemoRow<'filters'>[] = SYSTEM_FILTERS.map((f, i) => ({
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
  const userFilter = (owner: string, name: string, f: Partial<DemoRow<'filters'>> & { hidden?: string[]; spoilered?: string[] }) => {
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
export function planProfiles(b: Board, tagId: Map<string, number>) {
  const { start, R, plannedUsers } = b;
  const lr = R('links');
  const userLinkRows: DemoRow<'userLinks'>[] = [];
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
  const badgeRows: DemoRow<'badges'>[] = badgeDefs.map((b, i) => ({
    id: i + 1,
    title: b.title,
    description: b.description,
    image: `${destructiveSlug(b.title)}.svg`,
    createdAt: add(start, -300 * DAY),
  }));
  const badgeFiles = badgeDefs.map((b, i) => ({ key: badgeRows[i]!.image, title: b.title, color: b.color }));
  const awardRows: DemoRow<'badgeAwards'>[] = [];
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

  const dnpRows: DemoRow<'dnpEntries'>[] = [];
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
