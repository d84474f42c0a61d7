import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkEachLine, cleanTagName, multilineLines, normalizeMultiline, parse, QueryError, slugify, splitNamespace, TAG_NAMESPACES } from '../../grammar/index.js';
import { dsl, should, tag } from './helpers.js';

describe('multi-line strings (reference §1.9)', () => {
  it.each<[string | null | undefined, string]>([
    [null, ''],
    [undefined, ''],
    ['', ''],
    ['a', '(a)'],
    ['a\nb', '(a) || (b)'],
    ['a\r\nb\r\n', '(a) || (b)'],
    ['a\n\n\nb', '(a) || (b)'],
    ['\n', ''],
    ['a, b\nc OR d', '(a, b) || (c OR d)'],
    ['a\r', '(a)'],
    ['  \nb', '(  ) || (b)'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeMultiline(input)).toBe(expected);
  });

  it('compiles line by line as alternatives', () => {
    expect(dsl(normalizeMultiline('safe\nsolo, pony'))).toEqual(should(tag('safe'), { bool: { must: [tag('solo'), tag('pony')] } }));
  });
});

describe('cleanTagName (reference §8.4)', () => {
  it.each<[string, string]>([
    ['  Twilight   Sparkle ', 'twilight sparkle'],
    ['twilight_sparkle', 'twilight sparkle'],
    ['Artist: Some_Artist', 'artist:some_artist'],
    ['OC : foo', 'oc:foo'],
    ['oc:foo_bar', 'oc:foo_bar'],
    ['colorist:a_b', 'colorist:a_b'],
    ['commissioner:a_b', 'commissioner:a_b'],
    ['editor:a_b', 'editor:a_b'],
    ['photographer:a_b', 'photographer:a_b'],
    ['species:bat_pony', 'species:bat pony'],
    ['foo:bar', 'foo:bar'],
    ['foo : bar', 'foo : bar'],
    ['rainbow dash’s hat', "rainbow dash's hat"],
    ['´‘’‚‛′', "''''''"],
    ['“quoted”„‟″', '"quoted""""'],
    ['a\u00a0b\u3000c\ufeffd\u200be', 'a b c d e'],
    ['a\t\n b', 'a b'],
    ['safe', 'safe'],
    ['SAFE', 'safe'],
    ['_', ''],
    ['art pack:x', 'art pack:x'],
    ['Art  Pack : x_y', 'art pack:x y'],
    ['a:b:c', 'a:b:c'],
    ['artist:', 'artist:'],
    ['ÜBER', 'über'],
  ])('%j → %j', (input, expected) => {
    expect(cleanTagName(input)).toBe(expected);
  });

  it('knows the namespaces', () => {
    expect(TAG_NAMESPACES).toContain('artist');
    expect(TAG_NAMESPACES).toContain('art pack');
    expect(TAG_NAMESPACES).toHaveLength(17);
    expect(splitNamespace('artist:foo')).toEqual({ namespace: 'artist', nameInNamespace: 'foo' });
    expect(splitNamespace('foo:bar')).toEqual({ namespace: null, nameInNamespace: 'foo:bar' });
  });
});

describe('slugify (Philomena.Slug.slug)', () => {
  it.each<[string, string]>([
    ['twilight sparkle', 'twilight+sparkle'],
    ['artist:some_artist', 'artist-colon-some_artist'],
    ['oc:foo', 'oc-colon-foo'],
    ['species:bat pony', 'species-colon-bat+pony'],
    ['foo:bar', 'foo-colon-bar'],
    ["rainbow dash's hat", "rainbow+dash's+hat"],
    ['a-b', 'a-dash-b'],
    ['c++', 'c-plus--plus-'],
    [':3', '-colon-3'],
    ['-_-', '-dash-_-dash-'],
    ['3:10 to yuma', '3-colon-10+to+yuma'],
    ['a/b\\c.d', 'a-fwslash-b-bwslash-c-dot-d'],
    ['ü', 'ü'],
    ['Caps', 'Caps'],
  ])('%j → %j', (input, expected) => {
    expect(slugify(input)).toBe(expected);
  });
});

describe('cleanTagName against a step-by-step reading of reference §8.4', () => {
  const NAMESPACES = new Set(['artist', 'art pack', 'ask', 'blog', 'colorist', 'comic', 'commissioner', 'editor', 'fanfic', 'oc', 'parent', 'parents', 'photographer', 'series', 'species', 'spoiler', 'video']);
  function stepByStep(name: string): string {
    let s = name
      .toLowerCase()
      .replace(/[\s\u0085\u180e\u200b-\u200f\ufeff]+/gu, ' ')
      .replace(/[\u00b4\u2018\u2019\u201a\u201b\u2032]/gu, "'")
      .replace(/[\u201c\u201d\u201e\u201f\u2033]/gu, '"')
      .trim();
    const colon = s.indexOf(':');
    if (colon !== -1 && NAMESPACES.has(s.slice(0, colon).trim())) s = `${s.slice(0, colon).trim()}:${s.slice(colon + 1).trim()}`;
    if (!/^(artist|colorist|commissioner|editor|oc|photographer):/.test(s)) s = s.replace(/_/g, ' ');
    return s.trim().replace(/ {2,}/g, ' ');
  }

  it('agrees on random names', () => {
    const unit = fc.constantFrom(...'aZ _:-.\t\n\u00a0\u2019é'.split(''), 'oc', 'artist', 'Art Pack', ' : ', '__');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 12 }), (name) => {
        expect(cleanTagName(name)).toBe(stepByStep(name));
      }),
      { numRuns: 20_000 },
    );
  }, 120_000);
});

describe('multi-line strings checked line by line', () => {
  const positionOf = (written: string) => {
    try {
      checkEachLine(written, (line) => parse(line));
      return null;
    } catch (error) {
      if (!(error instanceof QueryError)) throw error;
      return { message: error.message, ...error.position };
    }
  };

  it.each<[string, { message: string; offset: number; line: number; column: number } | null]>([
    ['a\nb', null],
    // The same message and column as the line alone; the wrapping parentheses are not the author's.
    ['a\n!', { message: 'Expected a term.', offset: 3, line: 2, column: 2 }],
    ['a\nb, (c', { message: 'Imbalanced parentheses.', offset: 5, line: 2, column: 4 }],
    ['(c', { message: 'Imbalanced parentheses.', offset: 0, line: 1, column: 1 }],
    // `\r` is not part of a line; offsets still count it.
    ['a\r\n\r\nb,', { message: 'Expected a term.', offset: 7, line: 3, column: 3 }],
    ['\n\n  x)', { message: 'junk at end of expression: )', offset: 5, line: 3, column: 4 }],
  ])('%j', (written, expected) => {
    expect(positionOf(written)).toEqual(expected);
  });

  it('keeps each line with the offsets it was written at', () => {
    expect(multilineLines('ab\r\n\ncd')).toEqual([
      { text: 'ab', offsets: [0, 1, 2] },
      { text: 'cd', offsets: [5, 6, 7] },
    ]);
  });
});
