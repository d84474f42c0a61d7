import { describe, expect, it } from 'vitest';
import {
  MAX_TOKEN_LENGTH,
  STOP_WORDS,
  analyze,
  analyzeStandard,
  analyzeWithPositions,
  analyzerFor,
  lowercaseToken as lowercase,
  stem,
  tokenize,
} from '../../grammar/index.js';

describe('tokenize (standard tokenizer)', () => {
  it('splits on spaces, punctuation and symbols, keeping case', () => {
    expect(tokenize('Rainbow Dash, flying! (fast) + C++ & $5')).toEqual(['Rainbow', 'Dash', 'flying', 'fast', 'C', '5']);
  });

  it('keeps letters and digits together, and joins across _', () => {
    expect(tokenize('abc123 4chan foo_bar __init__')).toEqual(['abc123', '4chan', 'foo_bar', '__init__']);
  });

  it("joins letters across ' . : and digits across . ,", () => {
    expect(tokenize("don't U.S.A. example.com a:b 3.14 1,000,000")).toEqual([
      "don't", 'U.S.A', 'example.com', 'a:b', '3.14', '1,000,000',
    ]);
  });

  it('splits where a joiner is not between two word characters', () => {
    expect(tokenize("hello...world 'quoted' end. 1,a e-mail")).toEqual(['hello', 'world', 'quoted', 'end', '1', 'a', 'e', 'mail']);
  });

  it('emits Han and Hiragana characters one by one, Katakana as runs', () => {
    expect(tokenize('中文字 ひらがな カタカナ')).toEqual(['中', '文', '字', 'ひ', 'ら', 'が', 'な', 'カタカナ']);
  });

  it('emits emoji as tokens, with ZWJ sequences and flags whole', () => {
    expect(tokenize('I ❤️ 🐴🏳️‍🌈 🇫🇷!')).toEqual(['I', '❤️', '🐴', '🏳️‍🌈', '🇫🇷']);
  });

  it('keeps combining marks inside words and handles accented letters', () => {
    expect(tokenize('café naïve Pokémon')).toEqual(['café', 'naïve', 'Pokémon']);
  });

  it('splits tokens longer than the maximum token length', () => {
    const long = 'a'.repeat(MAX_TOKEN_LENGTH + 10);
    const tokens = tokenize(long);
    expect(tokens.map((t) => t.length)).toEqual([MAX_TOKEN_LENGTH, 10]);
  });

  it('returns nothing for empty or punctuation-only text', () => {
    expect(tokenize('')).toEqual([]);
    expect(tokenize(' ,.;!? ')).toEqual([]);
  });
});

describe('lowercase', () => {
  it('lowercases per code point like Java (no final sigma, dotted I to i)', () => {
    expect(lowercase('ΟΔΟΣ')).toBe('οδοσ');
    expect(lowercase('İstanbul')).toBe('istanbul');
    expect(lowercase('ÀÉÎ')).toBe('àéî');
    expect(lowercase('MiXeD')).toBe('mixed');
  });
});

describe('stem (English snowball / Porter2)', () => {
  const cases: Record<string, string> = {
    // examples from the brief
    running: 'run', runs: 'run', run: 'run', ponies: 'poni', pony: 'poni',
    // classic Porter2 examples
    caresses: 'caress', flies: 'fli', dies: 'die', mules: 'mule', denied: 'deni', died: 'die',
    agreed: 'agre', owned: 'own', humbled: 'humbl', sized: 'size', meeting: 'meet', stating: 'state',
    siezing: 'siez', itemization: 'item', sensational: 'sensat', traditional: 'tradit',
    reference: 'refer', colonizer: 'colon', plotted: 'plot',
    // the snowball sample vocabulary
    consign: 'consign', consigned: 'consign', consigning: 'consign', consignment: 'consign',
    consist: 'consist', consisted: 'consist', consistency: 'consist', consistent: 'consist',
    consistently: 'consist', consisting: 'consist', consists: 'consist', consolation: 'consol',
    consolatory: 'consolatori', console: 'consol', consolidate: 'consolid', consolingly: 'consol',
    conspicuous: 'conspicu', conspiracy: 'conspiraci', conspirator: 'conspir', constable: 'constabl',
    constancy: 'constanc', constant: 'constant', knackeries: 'knackeri', knaves: 'knave',
    kneaded: 'knead', kneeling: 'kneel', knightly: 'knight', knitting: 'knit', knives: 'knive',
    knocker: 'knocker', knocking: 'knock',
    // step 1a details
    ties: 'tie', cries: 'cri', gas: 'gas', gaps: 'gap', this: 'this', kiwis: 'kiwi', us: 'us',
    // y handling
    happy: 'happi', happiness: 'happi', cry: 'cri', by: 'by', say: 'say', toy: 'toy', enjoying: 'enjoy',
    // exceptions
    skies: 'sky', dying: 'die', lying: 'lie', tying: 'tie', news: 'news', only: 'onli', early: 'earli',
    gently: 'gentl', inning: 'inning', proceed: 'proceed', exceed: 'exceed', succeeding: 'succeed',
    generate: 'generat', generously: 'generous', arsenal: 'arsenal',
    // possessive-like apostrophes inside the stemmer
    "pony's": 'poni', "ponies'": 'poni',
    // step 2 to 5
    relational: 'relat', conditional: 'condit', hesitanci: 'hesit', digitizer: 'digit',
    vietnamization: 'vietnam', operator: 'oper', feudalism: 'feudal', decisiveness: 'decis',
    hopefulness: 'hope', callousness: 'callous', formaliti: 'formal', sensitiviti: 'sensit',
    triplicate: 'triplic', formative: 'format', formalize: 'formal', electrical: 'electr',
    goodness: 'good', revival: 'reviv', allowance: 'allow', inference: 'infer', airliner: 'airlin',
    gyroscopic: 'gyroscop', adjustable: 'adjust', defensible: 'defens', irritant: 'irrit',
    replacement: 'replac', adjustment: 'adjust', dependent: 'depend', adoption: 'adopt',
    homologous: 'homolog', effective: 'effect', bowdlerize: 'bowdler', hoped: 'hope', hopping: 'hop',
    cease: 'ceas', controll: 'control', roll: 'roll', animated: 'anim', animation: 'anim',
    // short words are left alone
    a: 'a', is: 'is', ox: 'ox',
  };
  for (const [word, expected] of Object.entries(cases)) {
    it(`${word} → ${expected}`, () => expect(stem(word)).toBe(expected));
  }
});

describe('analyze (snowball analyzer)', () => {
  it('removes exactly the 33 English stop words of Lucene', () => {
    expect(STOP_WORDS.size).toBe(33);
    for (const w of STOP_WORDS) expect(analyze(w)).toEqual([]);
    expect(analyze('The quick brown fox is NOT in the box')).toEqual(['quick', 'brown', 'fox', 'box']);
  });

  it('keeps common words that are not in the snowball stop set', () => {
    expect(analyze('over he she we you i me what')).toEqual(['over', 'he', 'she', 'we', 'you', 'i', 'me', 'what']);
  });

  it('lowercases, strips possessives and stems', () => {
    expect(analyze("Rainbow Dash's PONIES were Running")).toEqual(['rainbow', 'dash', 'poni', 'were', 'run']);
    expect(analyze('Ponies’s toys')).toEqual(['poni', 'toy']);
  });

  it('leaves gaps at removed stop words in the positions', () => {
    expect(analyzeWithPositions('quick the fox')).toEqual({ terms: ['quick', 'fox'], positions: [0, 2] });
    expect(analyzeWithPositions('a pony and a dragon')).toEqual({ terms: ['poni', 'dragon'], positions: [1, 4] });
  });

  it('returns one term per token otherwise, positions = indexes', () => {
    const a = analyzeWithPositions('twilight sparkle reads books');
    expect(a.terms).toEqual(['twilight', 'sparkl', 'read', 'book']);
    expect(a.positions).toEqual([0, 1, 2, 3]);
    expect(analyze('twilight sparkle reads books')).toEqual(a.terms);
  });

  it('handles numbers and mixed scripts', () => {
    expect(analyze('Season 4 episode 2.5 中文')).toEqual(['season', '4', 'episod', '2.5', '中', '文']);
  });
});

describe('analyzerFor', () => {
  it('maps standard to the standard analyzer (no stop words, no stemming)', () => {
    expect(analyzerFor('standard')('The Ponies')).toEqual({ terms: ['the', 'ponies'], positions: [0, 1] });
    expect(analyzeStandard('The Ponies').terms).toEqual(['the', 'ponies']);
  });

  it('maps snowball, english and no name to the snowball analyzer', () => {
    for (const name of ['snowball', 'english', undefined]) {
      expect(analyzerFor(name)('The Ponies').terms).toEqual(['poni']);
    }
  });

  it('rejects analyzers it does not implement', () => {
    expect(() => analyzerFor('kuromoji')).toThrow(/kuromoji/);
  });
});
