/**
 * Offsets of a filter's multi-line complex string after `normalizeMultiline` (each non-empty line
 * becomes `(line)`, joined by ` || `), mapped back to the text the author wrote, so errors and
 * clauses point into the author's own lines.
 */
import { normalizeMultiline } from '../../../grammar/index.js';

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
  // map[i] = written offset of normalized[i]; built by walking the lines as normalizeMultiline does.
  const map: number[] = [];
  let lineStart = 0;
  for (const line of written.split('\n')) {
    const kept: number[] = [];
    for (let i = 0; i < line.length; i++) if (line[i] !== '\r') kept.push(lineStart + i);
    const lineEnd = lineStart + line.length;
    if (kept.length > 0) {
      if (map.length > 0) map.push(lineStart, lineStart, lineStart, lineStart); // ` || `
      map.push(kept[0]!, ...kept, kept[kept.length - 1]!); // `(`, the line, `)`: the parentheses are not the author's
    }
    lineStart = lineEnd + 1;
  }
  if (map.length !== normalized.length) throw new Error('multiline offsets out of step with normalizeMultiline');
  return {
    normalized,
    toWritten: (offset) => (offset >= map.length ? written.length : map[Math.max(0, offset)]!),
  };
}
