/**
 * What a comment and a forum post share (reference §5.5, §5.6): who wrote it, what it says and
 * when. Everything is withheld when the image or topic holding the message is hidden; only the text
 * and its edit are withheld when the message itself is hidden. The author and avatar are kept then.
 */
import type { Config } from '../../config.js';
import type { AuthorUser } from '../../contexts/users/types.js';
import { attribute, withheldAvatar, type Attributable } from './attribution.js';
import { formatTime } from './time.js';

export interface MessageRow extends Omit<Attributable, 'objectId' | 'user'> {
  body: string;
  createdAt: Date;
  updatedAt: Date;
  editedAt: Date | null;
  editReason: string | null;
  hiddenFromUsers: boolean;
}

export type MessageViewConfig = Pick<Config, 'cdnUrl' | 'anonymousNameSalt'>;

/** What a comment or post view renders: the row, whether the image or topic holding it is hidden from users, and the author's account, if any. */
export interface MessageViewInput<Row extends MessageRow> {
  message: Row;
  placeHidden: boolean;
  user: AuthorUser | null;
}

/** Where the message stands: the image or topic its anonymous name is stable on, and whether that is hidden. */
export interface MessagePlace {
  objectId: number;
  hidden: boolean;
}

export function messageFields(config: MessageViewConfig, message: MessageRow, place: MessagePlace, user: AuthorUser | null) {
  if (place.hidden) {
    return {
      user_id: null,
      author: null,
      avatar: withheldAvatar(),
      body: null,
      created_at: null,
      updated_at: null,
      edited_at: null,
      edit_reason: null,
    };
  }
  const who = attribute(config, { ...message, objectId: place.objectId, user });
  const hidden = message.hiddenFromUsers;
  return {
    user_id: who.userId,
    author: who.author,
    avatar: who.avatar,
    body: hidden ? null : message.body,
    created_at: formatTime(message.createdAt),
    updated_at: formatTime(message.updatedAt),
    edited_at: hidden ? null : formatTime(message.editedAt),
    edit_reason: hidden ? null : message.editReason,
  };
}
