/** The user rows the users context hands out, derived from the Drizzle schema. */
import type { badgeAwards, badges, bans, userLinks, users } from '../../db/schema/index.js';

export type UserRow = typeof users.$inferSelect;
export type UserLinkRow = typeof userLinks.$inferSelect;
export type AwardRow = typeof badgeAwards.$inferSelect & { badge: typeof badges.$inferSelect };
export type BanRow = typeof bans.$inferSelect;

/** What a view shows of the author of a comment, post or topic. */
export type AuthorUser = Pick<UserRow, 'id' | 'name' | 'avatar'>;
