/**
 * "Background Pony #XXXX": the name shown for anonymous content (reference §5.5). Stable for one
 * author on one object (image, topic) and different across objects, without revealing who it is:
 * XXXX is the upper-case hex of a 2-byte PBKDF2-HMAC-SHA256 key over `object id ++ author id`,
 * salted with the site's `anonymousNameSalt`, 100 iterations.
 */
import { pbkdf2Sync } from 'node:crypto';

export const ANONYMOUS_NAME_PREFIX = 'Background Pony #';

/** One identifier as the reference writes it: numbers in decimal, missing values as "". */
function text(value: string | number | null | undefined): string {
  return value == null ? '' : String(value);
}

/**
 * @param objectId what the content is attached to: the image id of a comment, the topic id of a
 *   post or of a topic (else the object's own id)
 * @param userIdentifier the best identifier of the author: user id, else fingerprint, else IP
 */
export function anonymousName(
  salt: string,
  objectId: string | number | null | undefined,
  userIdentifier: string | number | null | undefined,
): string {
  const key = pbkdf2Sync(text(objectId) + text(userIdentifier), salt, 100, 2, 'sha256');
  return ANONYMOUS_NAME_PREFIX + key.toString('hex').toUpperCase().padStart(4, '0');
}

/** The first present of user id, fingerprint and IP (the reference's `best_user_identifier`). */
export function bestUserIdentifier(who: {
  userId: number | null | undefined;
  fingerprint?: string | null | undefined;
  ip?: string | null | undefined;
}): string {
  // Only a missing value falls through (an empty string is still an identifier, as in the reference).
  if (who.userId != null) return String(who.userId);
  if (who.fingerprint != null) return who.fingerprint;
  if (who.ip != null) return who.ip;
  return '';
}
