/**
 * Multi-line query strings (filter complex strings and watch-list strings, reference §1.9):
 * `\r` is dropped, the text is split on `\n`, empty lines are dropped, and each remaining line
 * becomes `(line)`, joined with ` || `. `null`/`undefined` give `""`. Not applied to the `q`
 * parameter of a search.
 */
export function normalizeMultiline(text: string | null | undefined): string {
  if (text === null || text === undefined) return '';
  const lines = text.replace(/\r/g, '').split('\n');
  let out = '';
  for (const line of lines) {
    if (line === '') continue;
    out += out === '' ? `(${line})` : ` || (${line})`;
  }
  return out;
}
