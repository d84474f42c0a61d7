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

/** The smallest distance over the fields, 65 when a document holds none of them. */
const DISTANCE = `
int best = 65;
for (int i = 0; i < params.fields.length; i++) {
  String f = params.fields[i];
  if (doc[f].size() == 0) continue;
  String h = doc[f].value;
  if (h.length() != 16) continue;
  long hi = Long.parseLong(h.substring(0, 8), 16);
  long lo = Long.parseLong(h.substring(8), 16);
  int d = Long.bitCount(hi ^ params.hi[i]) + Long.bitCount(lo ^ params.lo[i]);
  if (d < best) best = d;
}`;

export function hashSearchBody(request: HashSearchRequest): SearchBody {
  const radius = Math.min(16, Math.floor(Math.max(0, request.maxDistance) / CHUNKS));
  const params = {
    fields: request.hashes.map((h) => h.field),
    hi: request.hashes.map((h) => parseInt(h.value.slice(0, 8), 16)),
    lo: request.hashes.map((h) => parseInt(h.value.slice(8), 16)),
    max: request.maxDistance,
  };
  const candidates: Query = {
    bool: { should: request.hashes.map((h) => ({ terms: { [chunkField(h.field)]: chunkTermsWithin(h.value, radius) } })), minimum_should_match: 1 },
  } as Query;
  const filter: unknown[] = [candidates, { script: { script: { source: `${DISTANCE}\nreturn best <= params.max;`, params } } }];
  if (request.filter !== undefined) filter.unshift(request.filter);
  return {
    query: { bool: { filter } },
    sort: [{ _script: { type: 'number', order: 'asc', script: { source: `${DISTANCE}\nreturn best;`, params } } }, { id: 'asc' }],
    size: request.size,
    _source: false,
    track_total_hits: true,
  } as SearchBody;
}
