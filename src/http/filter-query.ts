/**
 * Compiling a filter's complex expression (hidden or spoilered) for the images index: multi-line
 * strings become an OR of their lines (reference §1.9), fields are those of the caller's role,
 * and the compile runs in the filter context (`filter_id:` is not allowed inside a filter).
 * Returns null for an empty expression and for one that does not compile: the API ignores such
 * an expression rather than letting it hide or spoiler every image (a deliberate fix of the
 * reference, §3.2).
 */
import { type Query, compileQuery, normalizeMultiline } from '../../grammar/index.js';
import { imageFields } from '../search/indexes/images/fields.js';
import type { UserRow } from '../contexts/users/types.js';

export function compileComplexFilter(source: string, user: UserRow | null, now?: number): Query | null {
  const normalized = normalizeMultiline(source);
  if (normalized.trim() === '') return null;
  try {
    return compileQuery(normalized, {
      fields: imageFields,
      role: user?.role ?? 'anonymous',
      context: { filter: true, userId: user?.id ?? null, ...(now === undefined ? {} : { now }) },
    });
  } catch {
    // A QueryError for bad syntax or values; whatever it is, a broken filter must not break the
    // image answer.
    return null;
  }
}
