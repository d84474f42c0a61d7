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

const BEFORE = /(?:,|&&|\|\||\(|\)|\bAND\b|\bOR\b)(?![^]*(?:,|&&|\|\||\(|\)|\bAND\b|\bOR\b))/;
const AFTER = /,|&&|\|\||\(|\)|\s(?:AND|OR)\s/;

export function termAtCursor(text: string, cursor = text.length): TypedTerm {
  const caret = Math.max(0, Math.min(cursor, text.length));
  const head = text.slice(0, caret);
  const before = BEFORE.exec(head);
  let start = before ? before.index + before[0].length : 0;
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
