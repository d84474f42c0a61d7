/**
 * The term being typed in a query: from the caret back to the previous operator (`,`, `&&`,
 * `||`, `AND`, `OR`, an opening or closing parenthesis) and forward to the next one, without a
 * leading negation (`-`, `!`, `NOT `) or surrounding spaces. `start`/`end` are what a
 * suggestion replaces, so `safe, -twi|` becomes `safe, -twilight sparkle`.
 */
export interface TypedTerm {
  term: string;
  start: number;
  end: number;
}

const SEPARATOR = /,|&&|\|\||\(|\)|\bAND\b|\bOR\b/g;
const AFTER = /,|&&|\|\||\(|\)|\s(?:AND|OR)\s/;

export function termAtCursor(text: string, cursor = text.length): TypedTerm {
  const caret = Math.max(0, Math.min(cursor, text.length));
  const head = text.slice(0, caret);
  let start = 0;
  for (const m of head.matchAll(SEPARATOR)) start = m.index + m[0].length;
  const afterMatch = AFTER.exec(text.slice(caret));
  let end = afterMatch ? caret + afterMatch.index : text.length;
  // Leading spaces and negations belong to the query, not to the term.
  for (;;) {
    const rest = text.slice(start, end);
    const lead = /^(?:\s+|[-!]|NOT\s+)/.exec(rest);
    if (!lead || lead[0].length === 0) break;
    start += lead[0].length;
  }
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  return { term: text.slice(start, end), start, end };
}
