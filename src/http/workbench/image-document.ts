/**
 * The image an explanation is about. A merged or deleted image is explained to staff moderators
 * only (who may search for it with `del`): to anyone else, which clauses it matches would tell its
 * tags, which every other view withholds.
 */
import type { UserRow } from '../../contexts/users/types.js';
import { isStaffModerator } from '../../contexts/users/roles.js';
import type { Database } from '../../db/client.js';
import type { IndexDocument } from '../../search/engine.js';
import { loadImageDocuments } from '../../contexts/search/documents/images-documents.js';

/** The image's index document, or undefined when there is no such image or the caller may not see it. */
export async function explainableImageDocument(db: Database, id: number, user: UserRow | null): Promise<IndexDocument | undefined> {
  const [doc] = await loadImageDocuments(db, [id]);
  if (doc === undefined) return undefined;
  return doc.hidden_from_users === true && !isStaffModerator(user) ? undefined : doc;
}
