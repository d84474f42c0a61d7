/**
 * `explainQuery`: the DSL a query compiles to on one index for one role, for the `query explain`
 * CLI. The search endpoints compile through `compile.ts`, which adds the caller's context and the
 * kept compilations.
 */
import { type Query, type QueryContext, type QueryLimits, type Role } from '../../../grammar/index.js';
import { compileQuery } from '../../../grammar/compiler.js';
import { queryFields, type IndexName } from '../../search/indexes/index.js';

export interface Explanation {
  index: IndexName;
  query: Query;
}

/**
 * Compile `q` for `index` as `role` would search. Throws `QueryError` (reference wording) for a
 * bad query, including a non-string `q` (`null`/`undefined` mean an empty query).
 */
export function explainQuery(
  index: IndexName,
  q: unknown,
  role: Role = 'anonymous',
  context: QueryContext = {},
  limits?: Partial<QueryLimits>,
): Explanation {
  return { index, query: compileQuery(q, { fields: queryFields[index], role, context, ...(limits ? { limits } : {}) }) };
}
