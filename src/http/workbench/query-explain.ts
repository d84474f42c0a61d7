/**
 * Which clauses of a query one image matches: the query's clause tree (grammar/clauses.ts), each
 * clause run by the evaluator against the image's index document, as the engine would see it.
 * The answer is about the query alone; no filter applies.
 */
import { clausePredicates, matchClauses, type Clause, type ClauseMatch } from '../../../grammar/index.js';
import type { Database } from '../../db/client.js';
import type { UserRow } from '../../contexts/users/types.js';
import { imagesMapping } from '../../search/indexes/images/mapping.js';
import { explainableImageDocument } from './image-document.js';

export interface ImageExplanation {
  id: number;
  matched: boolean;
  clauses: ClauseMatch | null;
}

/** The explanation on image `id`, or null when there is no such image or the caller may not see it. */
export async function explainOnImage(db: Database, id: number, user: UserRow | null, clauses: Clause | null, now = Date.now()): Promise<ImageExplanation | null> {
  const doc = await explainableImageDocument(db, id, user);
  if (doc === undefined) return null;
  if (clauses === null) return { id, matched: false, clauses: null };
  const match = matchClauses(clausePredicates(clauses, imagesMapping, { now: () => now }), doc);
  return { id, matched: match.matched, clauses: match };
}
