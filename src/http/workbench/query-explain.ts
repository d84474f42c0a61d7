/**
 * Which clauses of a query one image matches: the query's clause tree (grammar/clauses.ts), each
 * clause run by the evaluator against the image's index document, as the engine would see it.
 * The answer is about the query alone; no filter applies.
 */
import { clausePredicates, matchClauses, type Clause, type ClauseMatch } from '../../../grammar/index.js';
import type { Database } from '../../db/client.js';
import { loadImageDocuments } from '../../search/indexes/images/document.js';
import { imagesMapping } from '../../search/indexes/images/mapping.js';

export interface ImageExplanation {
  id: number;
  matched: boolean;
  clauses: ClauseMatch | null;
}

/** The explanation on image `id`, or null when there is no such image. */
export async function explainOnImage(db: Database, id: number, clauses: Clause | null, now = Date.now()): Promise<ImageExplanation | null> {
  const [doc] = await loadImageDocuments(db, [id]);
  if (doc === undefined) return null;
  if (clauses === null) return { id, matched: false, clauses: null };
  const match = matchClauses(clausePredicates(clauses, imagesMapping, { now: () => now }), doc);
  return { id, matched: match.matched, clauses: match };
}
