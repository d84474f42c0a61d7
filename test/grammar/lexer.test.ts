import { describe, expect, it } from 'vitest';
import { junkText, lex } from '../../grammar/index.js';

/** Tokens as `Kind:text` (the text the reference shows for a leftover token). */
function tokens(input: string): string[] {
  return lex(input).map((t) => `${t.tokenType.name}:${junkText(t)}`);
}

describe('lexer: operators and their whitespace rules (reference §1.2)', () => {
  it.each<[string, string[]]>([
    [',', ['And:,']],
    ['a,b', ['Term:a', 'And:,', 'Term:b']],
    ['a , b', ['Term:a ', 'And:,', 'Term:b']],
    ['a AND b', ['Term:a', 'And:AND', 'Term:b']],
    ['a && b', ['Term:a', 'And:&&', 'Term:b']],
    ['a\tAND\nb', ['Term:a', 'And:AND', 'Term:b']],
    ['a  AND   b', ['Term:a', 'And:AND', 'Term:b']],
    ['a ANDb', ['Term:a ANDb']],
    ['aAND b', ['Term:aAND b']],
    ['a&&b', ['Term:a&&b']],
    ['AND x', ['Term:AND x']],
    [' AND x', ['And:AND', 'Term:x']],
    ['a AND', ['Term:a AND']],
    ['a and b', ['Term:a and b']],
    ['a OR b', ['Term:a', 'Or:OR', 'Term:b']],
    ['a || b', ['Term:a', 'Or:||', 'Term:b']],
    ['a\r\n||\fb', ['Term:a', 'Or:||', 'Term:b']],
    ['a ORb', ['Term:a ORb']],
    ['a||b', ['Term:a||b']],
    ['safe OR', ['Term:safe OR']],
    ['safe OR ', ['Term:safe', 'Or:OR']],
    ['a, AND b', ['Term:a', 'And:,', 'And:AND', 'Term:b']],
    ['a AND AND b', ['Term:a', 'And:AND', 'Term:AND b']],
    ['a\u00a0AND\u00a0b', ['Term:a\u00a0AND\u00a0b']],
  ])('%j', (input, expected) => {
    expect(tokens(input)).toEqual(expected);
  });
});

describe('lexer: negation', () => {
  it.each<[string, string[]]>([
    ['NOT safe', ['Not:NOT', 'Term:safe']],
    ['NOT\tsafe', ['Not:NOT', 'Term:safe']],
    ['NOT', ['Term:NOT']],
    ['NOTsafe', ['Term:NOTsafe']],
    ['not safe', ['Term:not safe']],
    ['a NOT b', ['Term:a NOT b']],
    ['-safe', ['Not:-', 'Term:safe']],
    ['!safe', ['Not:!', 'Term:safe']],
    ['- safe', ['Not:-', 'Term:safe']],
    ['--safe', ['Not:-', 'Not:-', 'Term:safe']],
    ['safe -solo', ['Term:safe -solo']],
    ['safe, -solo', ['Term:safe', 'And:,', 'Not:-', 'Term:solo']],
    ['safe-solo', ['Term:safe-solo']],
    ['(a) -b', ['LParen:(', 'Term:a', 'RParen:)', 'Not:-', 'Term:b']],
    ['-(a)', ['Not:-', 'LParen:(', 'Term:a', 'RParen:)']],
    ['NOT (a)', ['Not:NOT', 'LParen:(', 'Term:a', 'RParen:)']],
  ])('%j', (input, expected) => {
    expect(tokens(input)).toEqual(expected);
  });
});

describe('lexer: terms, parentheses, escapes and quotes', () => {
  it.each<[string, string[]]>([
    ['twilight sparkle', ['Term:twilight sparkle']],
    ['a ', ['Term:a ']],
    ['a )', ['Term:a', 'RParen:)']],
    ['(a)', ['LParen:(', 'Term:a', 'RParen:)']],
    ['( a )', ['LParen:(', 'Term:a', 'RParen:)']],
    ['rose (flower)', ['Term:rose (flower)']],
    ['a (b (c))', ['Term:a (b (c))']],
    ['rose (flower', ['Term:rose ', 'LParen:(', 'Term:flower']],
    ['rose (flower )', ['Term:rose ', 'LParen:(', 'Term:flower', 'RParen:)']],
    ['rose (a,b)', ['Term:rose ', 'LParen:(', 'Term:a', 'And:,', 'Term:b', 'RParen:)']],
    ['a()', ['Term:a', 'LParen:(', 'RParen:)']],
    ['a)b', ['Term:a', 'RParen:)', 'Term:b']],
    ['a\\,b', ['Term:a\\,b']],
    ['a\\)', ['Term:a\\)']],
    ['a\\(b', ['Term:a\\(b']],
    ['a\\ OR b', ['Term:a\\ OR b']],
    ['a\\', ['Term:a\\']],
    ['"a b"', ['Term:a b']],
    ['"a, b OR c"', ['Term:a, b OR c']],
    ['"a\\"b"', ['Term:a"b']],
    ['"a\\\\b"', ['Term:a\\b']],
    ['"a\\*b"', ['Term:a\\*b']],
    ['""', ['Term:']],
    ['"unterminated', ['Term:"unterminated']],
    ['"a\\"', ['Term:"a\\"']],
    ['a"b"', ['Term:a"b"']],
    ['"a" b', ['Term:a', 'Term:b']],
    ['"-a"', ['Term:-a']],
    ['\u{1F600}\\\u{1F600}', ['Term:\u{1F600}\\\u{1F600}']],
  ])('%j', (input, expected) => {
    expect(tokens(input)).toEqual(expected);
  });

  it('marks quoted terms and keeps offsets of the source', () => {
    const [a, b] = lex('"x y", z');
    expect(a!.payload).toEqual({ raw: 'x y', quoted: true });
    expect(a!.startOffset).toBe(0);
    expect(b!.startOffset).toBe(5);
    expect(lex('a AND b')[1]!.startOffset).toBe(2);
  });
});

describe('lexer: boosts', () => {
  it.each<[string, string[]]>([
    ['a^2', ['Term:a', 'Boost:2']],
    ['a ^2', ['Term:a', 'Boost:2']],
    ['a^2.5', ['Term:a', 'Boost:2.5']],
    ['a^+2', ['Term:a', 'Boost:2']],
    ['a^-1', ['Term:a', 'Boost:-1']],
    ['a^02', ['Term:a', 'Boost:2']],
    ['a^2.0', ['Term:a', 'Boost:2.0']],
    ['a^2.', ['Term:a', 'Boost:2', 'Term:.']],
    ['^1e5', ['Boost:1', 'Term:e5']],
    ['a^b', ['Term:a^b']],
    ['a^', ['Term:a^']],
    ['a^2b', ['Term:a', 'Boost:2', 'Term:b']],
    ['(a)^2', ['LParen:(', 'Term:a', 'RParen:)', 'Boost:2']],
    ['a^2^3', ['Term:a', 'Boost:2', 'Boost:3']],
  ])('%j', (input, expected) => {
    expect(tokens(input)).toEqual(expected);
  });

  it('reads boost values as numbers', () => {
    expect(lex('a^2.5')[1]!.payload).toMatchObject({ value: 2.5 });
    expect(lex('a^-0')[1]!.payload).toMatchObject({ value: -0 });
  });
});

describe('lexer: whitespace', () => {
  it('drops space, tab, newline, carriage return, vertical tab and form feed', () => {
    expect(tokens(' \t\n\r\v\fa')).toEqual(['Term:a']);
    expect(tokens(' \t\n\r\v\f')).toEqual([]);
  });

  it('keeps other Unicode spaces inside terms', () => {
    expect(tokens('\u00a0a')).toEqual(['Term:\u00a0a']);
  });
});
