/**
 * Offsets of a filter's multi-line complex string after `normalizeMultiline` (each non-empty line
 * becomes `(line)`, joined by ` || `), mapped back to the text the author wrote, so errors and
 * clauses point into the author's own lines.
 */
import { multilineLines, normalizeMultiline } from '../../../grammar/index.js';

export interface MultilineText {
  /** What the grammar compiles. */
  normalized: string;
  /**
   * The offset in the written text of an offset in `normalized` (the end maps to the end); the
   * parentheses around a line map to its first and last characters.
   */
  toWritten(offset: number): number;
}

export function multilineText(written: string): MultilineText {
  const normalized = normalizeMultiline(written);
  // map[i] = written offset of normalized[i], line by line as normalizeMultiline joins them.
  const map: number[] = [];
  for (const { text, offsets } of multilineLines(written)) {
    const first = offsets[0]!;
    const last = offsets[text.length - 1]!;
    if (map.length > 0) map.push(first, first, first, first); // ` || `
    map.push(first, ...offsets.slice(0, text.length), last); // `(`, the line, `)`: the parentheses are not the author's
  }
  if (map.length !== normalized.length) throw new Error('multiline offsets out of step with normalizeMultiline');
  return {
    normalized,
    toWritten: (offset) => (offset >= map.length ? written.length : map[Math.max(0, offset)]!),
  };
}
