/** Who may see, and so use, a filter. */
import { isStaffModerator } from '../users/roles.js';
import type { UserRow } from '../users/types.js';
import type { FilterRow } from './types.js';

/** System, public and own filters; any filter for moderators and admins. */
export function canViewFilter(user: UserRow | null, filter: FilterRow): boolean {
  return filter.system || filter.public || (user !== null && filter.userId === user.id) || isStaffModerator(user);
}
