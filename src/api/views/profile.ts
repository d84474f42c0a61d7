/**
 * The user profile (spec "User response", reference §5.8) with its links and awards. `role` reads
 * "user" when the user hides their role; only public, verified links are shown.
 */
import type { z } from 'zod';
import type { Config } from '../../config.js';
import type { Award, Link, Profile } from '../schemas/resources.js';
import { formatTime } from './time.js';
import { avatarUrl, badgeImageUrl } from './urls.js';
import type { AwardRow, UserLinkRow, UserRow } from '../../contexts/users/types.js';

export type LinkJson = z.output<typeof Link>;

export type AwardJson = z.output<typeof Award>;

export type ProfileJson = z.output<typeof Profile>;

/** Whether a link appears on the public profile. */
export const isPublicLink = (link: UserLinkRow): boolean => link.public && link.state === 'verified';

export function linkView(link: UserLinkRow): LinkJson {
  return { user_id: link.userId, created_at: formatTime(link.createdAt), state: link.state, tag_id: link.tagId };
}

export function awardView(config: Pick<Config, 'cdnUrl'>, award: AwardRow): AwardJson {
  return {
    image_url: badgeImageUrl(config, award.badge.image),
    title: award.badge.title,
    id: award.badgeId,
    label: award.label,
    awarded_on: formatTime(award.awardedOn),
  };
}

export function profileView(
  config: Pick<Config, 'cdnUrl'>,
  user: UserRow,
  links: readonly UserLinkRow[],
  awards: readonly AwardRow[],
): ProfileJson {
  return {
    id: user.id,
    name: user.name,
    slug: user.slug,
    role: user.hideDefaultRole ? 'user' : user.role,
    description: user.description,
    avatar_url: user.avatar ? avatarUrl(config, user.avatar) : null,
    created_at: formatTime(user.createdAt),
    comments_count: user.commentsCount,
    uploads_count: user.imagesCount,
    posts_count: user.postsCount,
    topics_count: user.topicsCount,
    links: links.filter(isPublicLink).map(linkView),
    awards: awards.map((a) => awardView(config, a)),
  };
}
