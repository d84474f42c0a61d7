/**
 * Validation of a filter's complex strings (hidden_complex, spoilered_complex): each must compile
 * as an image query in the filter context (multi-line strings are joined with OR first, as the
 * site does when it uses them) and may not use `my:downvotes` (reference §5.8).
 *
 * The search language is loaded on first use: building it takes a noticeable moment, and most
 * commands never need it.
 */
import type { Role } from '../../../grammar/index.js';

export interface ComplexCheckOptions {
  /**
   * Whose fields the string may use. System filters serve everyone, so they are checked as
   * `anonymous` (the default); a user's filter as that user.
   */
  role?: Role;
  userId?: number | null;
}

/** Why a complex filter string is not acceptable, or null when it is (an empty string is fine). */
export async function complexProblem(q: string, options: ComplexCheckOptions = {}): Promise<string | null> {
  if (/\bmy\s*:\s*downvotes\b/i.test(q)) return 'may not contain my:downvotes';
  const [grammar, { compileQuery }, { imageFields }] = await Promise.all([
    import('../../../grammar/index.js'),
    import('../../../grammar/compiler.js'),
    import('../../search/indexes/images/fields.js'),
  ]);
  try {
    const compileOptions = { fields: imageFields, role: options.role ?? 'anonymous', context: { filter: true, userId: options.userId ?? null } } as const;
    // Line by line first, so that a broken line gets the message the same text gets as a search.
    grammar.checkEachLine(q, (line) => compileQuery(line, compileOptions));
    compileQuery(grammar.normalizeMultiline(q), compileOptions);
    return null;
  } catch (err) {
    if (grammar.isQueryError(err)) return err.message;
    throw err;
  }
}
