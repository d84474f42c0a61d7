/**
 * Shared helpers of the search-language tests: every compiled query goes through the JSON
 * Schema of the OpenSearch client's query DSL before a test looks at it.
 */
import { QueryError, type Query, type QueryContext, type QueryLimits, type Role } from '../../grammar/index.js';
import { compileQuery } from '../../grammar/compiler.js';
import { queryFields, type IndexName } from '../../src/search/indexes/index.js';
import { assertValidQuery } from '../support/dsl-schema.js';

/** The clock of every test: 2024-01-10T12:00:00Z. */
export const NOW = Date.UTC(2024, 0, 10, 12, 0, 0);

export interface Options {
  index?: IndexName;
  role?: Role;
  context?: QueryContext;
  limits?: Partial<QueryLimits>;
}

/** Compile for an index (images by default, anonymous), check the DSL against the schema, return it. */
export function dsl(input: unknown, options: Options = {}): Query {
  const query = compileQuery(input, {
    fields: queryFields[options.index ?? 'images'],
    role: options.role ?? 'anonymous',
    context: { now: NOW, ...options.context },
    ...(options.limits ? { limits: options.limits } : {}),
  });
  assertValidQuery(query);
  return query;
}

/** The QueryError a query gives (fails the test if it compiles). */
export function queryError(input: unknown, options: Options = {}): QueryError {
  try {
    dsl(input, options);
  } catch (error) {
    if (error instanceof QueryError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(input)} to fail`);
}

/** `{"term":{"tags":tag}}`. */
export const tag = (name: string): Query => ({ term: { tags: name } });
export const must = (...q: Query[]): Query => ({ bool: { must: q } });
export const should = (...q: Query[]): Query => ({ bool: { should: q } });
export const mustNot = (q: Query): Query => ({ bool: { must_not: q } });
