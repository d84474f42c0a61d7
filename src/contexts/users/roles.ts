/** What a user's role lets them see beyond what everyone sees. */
import type { UserRow } from './types.js';

/** Moderators and admins: they may see and use any filter. */
export function isStaffModerator(user: UserRow | null): boolean {
  return user !== null && (user.role === 'moderator' || user.role === 'admin');
}
