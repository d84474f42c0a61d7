/**
 * Runs `op`; when it fails with an error `expected` recognises (a missing file, a 404), answers
 * `fallback` instead, and lets any other error through. Storage backends use it to turn "not
 * there" into null or false without swallowing real failures.
 */
export async function orIf<T, F>(op: () => Promise<T>, expected: (error: unknown) => boolean, fallback: F): Promise<T | F> {
  try {
    return await op();
  } catch (error) {
    if (expected(error)) return fallback;
    throw error;
  }
}
