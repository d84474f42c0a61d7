/**
 * Multi-line query strings (filter complex strings and watch-list strings, reference §1.9):
 * `\r` is dropped, the text is split on `\n`, empty lines are dropped, and each remaining line
 * becomes `(line)`, joined with ` || `. `null`/`undefined` give `""`. Not applied to the `q`
 * parameter of a search.
 */
import { QueryError } from './errors.js';

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

/** One non-empty line of a multi-line string: its text (without `\r`) and where each character was written. */
export interface WrittenLine {
  text: string;
  /** offsets[i] is the offset in the written string of text[i]; offsets[text.length] is the line's end. */
  offsets: number[];
}

/** The lines `normalizeMultiline` keeps, with their places in the written string. */
export function multilineLines(written: string): WrittenLine[] {
  const out: WrittenLine[] = [];
  let lineStart = 0;
  for (const line of written.split('\n')) {
    const offsets: number[] = [];
    let text = '';
    for (let i = 0; i < line.length; i++) {
      if (line[i] === '\r') continue;
      offsets.push(lineStart + i);
      text += line[i];
    }
    if (text !== '') out.push({ text, offsets: [...offsets, lineStart + line.replace(/\r+$/, '').length] });
    lineStart += line.length + 1;
  }
  return out;
}

/**
 * Runs `check` (a compile) on each line alone, so that a broken line is reported exactly as the
 * same text typed as a search would be (the same message and place; the parentheses and `||`
 * that join the lines are not the author's and must not move or change an error). The error is
 * raised at its place in the written string.
 */
export function checkEachLine(written: string, check: (line: string) => unknown): void {
  for (const line of multilineLines(written)) {
    try {
      check(line.text);
    } catch (error) {
      if (!(error instanceof QueryError)) throw error;
      const at = line.offsets[Math.min(error.position.offset, line.text.length)]!;
      throw QueryError.at(written, at, error.message);
    }
  }
}
