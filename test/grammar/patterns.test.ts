import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  codePointLength,
  compileWildcard,
  editDistanceUpTo,
  fuzzyMaxEdits,
  hasWildcard,
  wildcardLiteralPrefix,
  withinEditDistance,
} from '../../grammar/index.js';

describe('compileWildcard', () => {
  const m = (pattern: string, value: string, ci = false) => compileWildcard(pattern, ci)(value);

  it('? matches exactly one character, never zero', () => {
    expect(m('p?ny', 'pony')).toBe(true);
    expect(m('p?ny', 'pny')).toBe(false);
    expect(m('p?ny', 'pooony')).toBe(false);
    expect(m('?', '')).toBe(false);
    expect(m('??', 'ab')).toBe(true);
    expect(m('??', 'a')).toBe(false);
  });

  it('? matches one code point, including astral characters', () => {
    expect(m('?', '🐴')).toBe(true);
    expect(m('a?c', 'a🐴c')).toBe(true);
    expect(m('a??c', 'a🐴c')).toBe(false);
  });

  it('* matches zero or more characters', () => {
    expect(m('solo*', 'solo')).toBe(true);
    expect(m('solo*', 'solo female')).toBe(true);
    expect(m('*solo', 'solo')).toBe(true);
    expect(m('*solo*', 'not solo here')).toBe(true);
    expect(m('a*b*c', 'abc')).toBe(true);
    expect(m('a*b*c', 'aXXbYYc')).toBe(true);
    expect(m('a*b*c', 'aXXcYYb')).toBe(false);
    expect(m('*', '')).toBe(true);
    expect(m('**', 'anything')).toBe(true);
  });

  it('is anchored at both ends', () => {
    expect(m('pony', 'a pony')).toBe(false);
    expect(m('pony', 'pony!')).toBe(false);
    expect(m('p*y', 'pony!')).toBe(false);
    expect(m('', '')).toBe(true);
    expect(m('', 'x')).toBe(false);
  });

  it('is case-sensitive unless asked otherwise', () => {
    expect(m('Pony*', 'pony')).toBe(false);
    expect(m('Pony*', 'pony', true)).toBe(true);
    expect(m('pony', 'PONY', true)).toBe(true);
    expect(m('p?NY', 'Pony', true)).toBe(true);
    expect(m('*DASH', 'rainbow dash', true)).toBe(true);
  });

  it('\\ escapes *, ? and \\ itself', () => {
    expect(m('a\\*b', 'a*b')).toBe(true);
    expect(m('a\\*b', 'axb')).toBe(false);
    expect(m('what\\?', 'what?')).toBe(true);
    expect(m('what\\?', 'whatx')).toBe(false);
    expect(m('back\\\\slash', 'back\\slash')).toBe(true);
    expect(m('\\*\\?*', '*?tail')).toBe(true);
    expect(m('trailing\\', 'trailing\\')).toBe(true);
    expect(m('\\p', 'p')).toBe(true);
  });

  it('treats regex metacharacters literally', () => {
    expect(m('a.b', 'a.b')).toBe(true);
    expect(m('a.b', 'axb')).toBe(false);
    expect(m('(solo)*', '(solo) pony')).toBe(true);
    expect(m('[a-z]+?', '[a-z]+x')).toBe(true);
    expect(m('^$|/-*', '^$|/-anything')).toBe(true);
  });

  it('matches across newlines', () => {
    expect(m('a*b', 'a\nb')).toBe(true);
    expect(m('a?b', 'a\nb')).toBe(true);
  });

  it('caches compiled matchers', () => {
    expect(compileWildcard('cached*')).toBe(compileWildcard('cached*'));
    expect(compileWildcard('cached*', true)).toBe(compileWildcard('cached*', true));
    expect(compileWildcard('cached*')).not.toBe(compileWildcard('cached*', true));
  });

  it('agrees with a reference regex on random patterns', () => {
    const alphabet = fc.constantFrom('a', 'b', '*', '?', '\\');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 6 }), fc.array(fc.constantFrom('a', 'b', '*', '?', '\\'), { maxLength: 6 }), (p, v) => {
        const pattern = p.join('');
        const value = v.join('');
        const lit = (c: string) => (/[a-z]/.test(c) ? c : '\\' + c);
        let source = '^';
        for (let i = 0; i < pattern.length; i++) {
          const ch = pattern[i] as string;
          if (ch === '\\') source += i + 1 < pattern.length ? lit(pattern[++i] as string) : '\\\\';
          else if (ch === '*') source += '[^]*';
          else if (ch === '?') source += '[^]';
          else source += lit(ch);
        }
        const expected = new RegExp(source + '$', 'u').test(value);
        expect(compileWildcard(pattern)(value)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('wildcardLiteralPrefix', () => {
  it('returns the literal text before the first unescaped * or ?', () => {
    expect(wildcardLiteralPrefix('pony*')).toBe('pony');
    expect(wildcardLiteralPrefix('po?y')).toBe('po');
    expect(wildcardLiteralPrefix('*pony')).toBe('');
    expect(wildcardLiteralPrefix('exact')).toBe('exact');
    expect(wildcardLiteralPrefix('a\\*b*c')).toBe('a*b');
    expect(wildcardLiteralPrefix('a\\\\*')).toBe('a\\');
    expect(wildcardLiteralPrefix('')).toBe('');
  });

  it('is a prefix of every value the pattern matches', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[ab*?\\]{0,6}$/), fc.stringMatching(/^[ab*?\\]{0,6}$/), (pattern, value) => {
        if (compileWildcard(pattern)(value)) expect(value.startsWith(wildcardLiteralPrefix(pattern))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('hasWildcard', () => {
  it('sees only unescaped * and ?', () => {
    expect(hasWildcard('a*')).toBe(true);
    expect(hasWildcard('a?')).toBe(true);
    expect(hasWildcard('a\\*')).toBe(false);
    expect(hasWildcard('plain')).toBe(false);
  });
});

describe('fuzzyMaxEdits', () => {
  it('fuzziness ≥ 1 allows floor(f) edits, at most 2', () => {
    expect(fuzzyMaxEdits('pony', 1)).toBe(1);
    expect(fuzzyMaxEdits('pony', 1.9)).toBe(1);
    expect(fuzzyMaxEdits('pony', 2)).toBe(2);
    expect(fuzzyMaxEdits('pony', 5)).toBe(2);
    expect(fuzzyMaxEdits('pony', '2')).toBe(2);
  });

  it('0 ≤ f < 1 allows no edit, as OpenSearch 2.x truncates the fraction', () => {
    expect(fuzzyMaxEdits('pony', 0.8)).toBe(0);
    expect(fuzzyMaxEdits('rainbow dash', 0.8)).toBe(0);
    expect(fuzzyMaxEdits('ab', 0.5)).toBe(0);
    expect(fuzzyMaxEdits('pony', 0)).toBe(0);
    expect(fuzzyMaxEdits('', 0)).toBe(0);
    expect(fuzzyMaxEdits('ponies', '0.5')).toBe(0);
  });

  it('AUTO uses Lucene thresholds 3 and 6, or the given ones', () => {
    expect(fuzzyMaxEdits('ab', 'AUTO')).toBe(0);
    expect(fuzzyMaxEdits('abc', 'AUTO')).toBe(1);
    expect(fuzzyMaxEdits('abcde', 'AUTO')).toBe(1);
    expect(fuzzyMaxEdits('abcdef', 'AUTO')).toBe(2);
    expect(fuzzyMaxEdits('abcdef', 'auto')).toBe(2);
    expect(fuzzyMaxEdits('abcd', 'AUTO:2,4')).toBe(2);
    expect(fuzzyMaxEdits('a', 'AUTO:2,4')).toBe(0);
    expect(fuzzyMaxEdits('🐴🐴', 'AUTO')).toBe(0);
  });

  it('rejects invalid fuzziness', () => {
    expect(() => fuzzyMaxEdits('x', -1)).toThrow(/fuzziness/);
    expect(() => fuzzyMaxEdits('x', 'lots')).toThrow(/fuzziness/);
    expect(() => fuzzyMaxEdits('x', Number.NaN)).toThrow(/fuzziness/);
  });
});

/** Reference optimal string alignment distance, by code points, full matrix. */
function osa(a: string, b: string, transpositions = true): number {
  const x = [...a];
  const y = [...b];
  const d: number[][] = [];
  for (let i = 0; i <= x.length; i++) {
    const row: number[] = [];
    d.push(row);
    for (let j = 0; j <= y.length; j++) {
      if (i === 0 || j === 0) {
        row.push(i + j);
        continue;
      }
      const prev = d[i - 1] as number[];
      let v = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + (x[i - 1] === y[j - 1] ? 0 : 1));
      if (transpositions && i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) {
        v = Math.min(v, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
      row.push(v);
    }
  }
  return (d[x.length] as number[])[y.length] as number;
}

describe('withinEditDistance', () => {
  it('counts insertions, deletions and substitutions as one edit each', () => {
    expect(withinEditDistance('pony', 'pony', 0)).toBe(true);
    expect(withinEditDistance('pony', 'pont', 0)).toBe(false);
    expect(withinEditDistance('pony', 'pont', 1)).toBe(true);
    expect(withinEditDistance('pony', 'ponny', 1)).toBe(true);
    expect(withinEditDistance('pony', 'pny', 1)).toBe(true);
    expect(withinEditDistance('pony', 'pn', 1)).toBe(false);
    expect(withinEditDistance('pony', 'pn', 2)).toBe(true);
    expect(withinEditDistance('kitten', 'sitting', 2)).toBe(false);
    expect(withinEditDistance('kitten', 'sitting', 3)).toBe(true);
  });

  it('counts a transposition as one edit (Damerau), unless disabled', () => {
    expect(withinEditDistance('pony', 'opny', 1)).toBe(true);
    expect(withinEditDistance('pony', 'poyn', 1)).toBe(true);
    expect(withinEditDistance('pony', 'opny', 1, false)).toBe(false);
    expect(withinEditDistance('pony', 'opny', 2, false)).toBe(true);
    expect(editDistanceUpTo('abcdef', 'badcfe', 3)).toBe(3);
  });

  it('compares code points, not UTF-16 units', () => {
    expect(withinEditDistance('🐴', '🦄', 1)).toBe(true);
    expect(withinEditDistance('a🐴b', 'ab', 1)).toBe(true);
    expect(withinEditDistance('🐴🦄', '🦄🐴', 1)).toBe(true);
    expect(codePointLength('a🐴b')).toBe(3);
  });

  it('handles empty strings and length differences', () => {
    expect(withinEditDistance('', '', 0)).toBe(true);
    expect(withinEditDistance('', 'ab', 2)).toBe(true);
    expect(withinEditDistance('', 'abc', 2)).toBe(false);
    expect(withinEditDistance('abcdef', 'a', 2)).toBe(false);
  });

  it('agrees with the full-matrix distance on random strings', () => {
    const str = fc.stringMatching(/^[abc]{0,8}$/);
    fc.assert(
      fc.property(str, str, fc.integer({ min: 0, max: 3 }), fc.boolean(), (a, b, k, t) => {
        expect(withinEditDistance(a, b, k, t)).toBe(osa(a, b, t) <= k);
      }),
      { numRuns: 5000 },
    );
  });
});
