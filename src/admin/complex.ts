/**
 * Validation of a filter's complex strings (hidden_complex, spoilered_complex): they must be
 * valid image search queries and may not use `my:downvotes` (reference §5.8).
 *
 * The search language is loaded on first use: building its parser takes a noticeable moment,
 * and most commands never need it.
 */

/** Why a complex filter string is not acceptable, or null when it is (an empty string is fine). */
export async function complexProblem(q: string): Promise<string | null> {
  if (/\bmy\s*:\s*downvotes\b/i.test(q)) return 'may not contain my:downvotes';
  const [{ parse }, { isQueryError }] = await Promise.all([import('../../grammar/parser.js'), import('../../grammar/errors.js')]);
  try {
    parse(q);
    return null;
  } catch (err) {
    if (isQueryError(err)) return err.message;
    throw err;
  }
}
