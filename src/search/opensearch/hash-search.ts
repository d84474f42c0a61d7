/**
 * Hash search (`SearchEngine.searchHashes`) as one OpenSearch request: the caller's filter, the
 * chunk terms within ⌊d/4⌋ bits of the query's chunks (see ../hash-chunks.ts) to find candidates,
 * a script query verifying the whole hashes from their doc values, and a script sort on the
 * distance. Hashes travel as two 32-bit halves, which JSON numbers and Painless longs hold exactly.
 */
import type { Query } from '../../../grammar/index.js';
import type { HashSearchRequest } from '../engine.js';
import { CHUNKS, chunkField, chunkTermsWithin } from '../hash-chunks.js';
import type { SearchBody } from './paging.js';

/**
 * The smallest distance over the fields and each of their values (`rhash` holds several) that is
 * within the hash's own maximum, 65 when none is.
 */
const DISTANCE = `
int best = 65;
for (int i = 0; i < params.fields.length; i++) {
  String f = params.fields[i];
  // an index built before the field was mapped (until its reindex) has no such doc values
  if (!doc.containsKey(f)) continue;
  for (String h : doc[f]) {
    if (h.length() != 16) continue;
    long hi = Long.parseLong(h.substring(0, 8), 16);
    long lo = Long.parseLong(h.substring(8), 16);
    int d = Long.bitCount(hi ^ params.hi[i]) + Long.bitCount(lo ^ params.lo[i]);
    if (d <= params.max[i] && d < best) best = d;
  }
}`;

export function hashSearchBody(request: HashSearchRequest): SearchBody {
  const maxima = request.hashes.map((h) => Math.max(0, h.maxDistance ?? request.maxDistance));
  const params = {
    fields: request.hashes.map((h) => h.field),
    hi: request.hashes.map((h) => parseInt(h.value.slice(0, 8), 16)),
    lo: request.hashes.map((h) => parseInt(h.value.slice(8), 16)),
    max: maxima,
  };
  const candidates: Query = {
    bool: { should: request.hashes.map((h, i) => ({ terms: { [chunkField(h.field)]: chunkTermsWithin(h.value, Math.min(16, Math.floor(maxima[i]! / CHUNKS))) } })), minimum_should_match: 1 },
  } as Query;
  const filter: unknown[] = [candidates, { script: { script: { source: `${DISTANCE}\nreturn best < 65;`, params } } }];
  if (request.filter !== undefined) filter.unshift(request.filter);
  return {
    query: { bool: { filter } },
    sort: [{ _script: { type: 'number', order: 'asc', script: { source: `${DISTANCE}\nreturn best;`, params } } }, { id: 'asc' }],
    size: request.size,
    _source: false,
    track_total_hits: true,
  } as SearchBody;
}
