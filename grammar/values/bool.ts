/** Values of bool fields: exactly `true` or `false` (case-sensitive), emitted as the strings. */
import { expected } from './value-error.js';
import { isSpace } from '../lexer.js';

export const BOOL_LABEL = "a boolean, like `true' or `false'";

export function parseBool(value: string): 'true' | 'false' {
  const word = value.startsWith('true') ? 'true' : value.startsWith('false') ? 'false' : null;
  if (word === null) throw expected(BOOL_LABEL, value, 0);
  let i = word.length;
  while (i < value.length && isSpace(value.charCodeAt(i))) i++;
  if (i !== value.length) throw expected(BOOL_LABEL, value, i);
  return word;
}
