/** A user's profile: the user, their public verified links and their badge awards. */
import { and, asc, desc, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { badgeAwards, badges, userLinks, users } from '../../db/schema/index.js';
import type { AwardRow, UserLinkRow, UserRow } from './types.js';

export interface Profile {
  user: UserRow;
  /** Public and verified, by id. */
  links: UserLinkRow[];
  /** Newest first. */
  awards: AwardRow[];
}

/** The profile of an active user; undefined for unknown and deactivated users. */
export async function loadProfile(db: Database, id: number): Promise<Profile | undefined> {
  const [user] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  if (!user || user.deletedAt !== null) return undefined;
  const [links, awards] = await Promise.all([
    db
      .select()
      .from(userLinks)
      .where(and(eq(userLinks.userId, id), eq(userLinks.public, true), eq(userLinks.state, 'verified')))
      .orderBy(asc(userLinks.id)),
    db
      .select({ award: badgeAwards, badge: badges })
      .from(badgeAwards)
      .innerJoin(badges, eq(badges.id, badgeAwards.badgeId))
      .where(eq(badgeAwards.userId, id))
      .orderBy(desc(badgeAwards.awardedOn), desc(badgeAwards.id)),
  ]);
  return { user, links, awards: awards.map((a) => ({ ...a.award, badge: a.badge })) };
}
