/**
 * Who wrote something, as the API shows it (reference §5.5): the user's name and id, or for
 * anonymous content and content without a user the salted "Background Pony #XXXX" name and a null
 * id. The avatar is the uploaded one when the author is shown and has one, else a generated SVG
 * seeded by the display name — never null.
 */
import type { Config } from '../../config.js';
import { anonymousName, bestUserIdentifier } from '../../contexts/users/anonymous-name.js';
import { avatarDataUri } from '../../contexts/users/avatar.js';
import { avatarUrl } from './urls.js';
import type { AuthorUser } from '../../contexts/users/types.js';

export interface Attributable {
  /** The object the name is stable on: image id for comments, topic id for posts and topics. */
  objectId: number;
  userId: number | null;
  anonymous: boolean;
  fingerprint?: string | null;
  ip?: string | null;
  /** The author's account when there is one (even for anonymous content). */
  user: AuthorUser | null;
}

export interface Attribution {
  userId: number | null;
  author: string;
  avatar: string;
}

export function attribute(config: Pick<Config, 'cdnUrl' | 'anonymousNameSalt'>, what: Attributable): Attribution {
  if (what.user !== null && !what.anonymous) {
    const avatar = what.user.avatar ? avatarUrl(config, what.user.avatar) : avatarDataUri(what.user.name);
    return { userId: what.user.id, author: what.user.name, avatar };
  }
  const name = anonymousName(config.anonymousNameSalt, what.objectId, bestUserIdentifier(what));
  return { userId: null, author: name, avatar: avatarDataUri(name) };
}

/**
 * The avatar shown where even the author is withheld (content on a hidden image or in a hidden
 * topic): the reference omits the key there, but clients require a string.
 */
export const WITHHELD_AVATAR_SEED = 'Background Pony';
export const withheldAvatar = (): string => avatarDataUri(WITHHELD_AVATAR_SEED);
