import { describe, expect, it } from 'vitest';
import { type Query, compileEvaluator } from '../../grammar/index.js';
import { mapping, image, check, hit, miss } from './evaluate-doc.js';

describe('wildcard and prefix', () => {
  it('matches keyword patterns', () => {
    hit({ wildcard: { tags: 'rain*' } });
    hit({ wildcard: { tags: '*dash' } });
    hit({ wildcard: { tags: '*bow*' } });
    hit({ wildcard: { tags: 'artist:*' } });
    hit({ wildcard: { tags: { value: 's?f*' } } });
    hit({ wildcard: { tags: { wildcard: 's?f*' } } });
    miss({ wildcard: { tags: 'rain' } });
  });

  it('honours escapes', () => {
    hit({ wildcard: { tags: 'blue_\\*' } });
    miss({ wildcard: { tags: 'blu\\*' } });
  });

  it('is case-sensitive unless case_insensitive', () => {
    miss({ wildcard: { file_name: 'dash.*' } });
    hit({ wildcard: { file_name: { value: 'dash.*', case_insensitive: true } } });
    hit({ prefix: { file_name: { value: 'dash', case_insensitive: true } } });
    miss({ prefix: { file_name: 'dash' } });
  });

  it('prefix matches the start of a value', () => {
    hit({ prefix: { tags: 'rainbow' } });
    hit({ prefix: { tags: { value: 'artist:' } } });
    miss({ prefix: { tags: 'dash' } });
  });

  it('matches keyword ids stored as numbers', () => {
    hit({ wildcard: { tag_ids: '4*' } });
    hit({ prefix: { uploader_id: '7' } });
  });

  it('matches analyzed terms on text fields', () => {
    check({ wildcard: { description: 'cloud*' } }, image, true, false);
    check({ prefix: { description: 'rain' } }, image, true, false);
  });

  it('rejects numeric fields', () => {
    expect(() => compileEvaluator({ prefix: { score: '1' } } as Query, mapping)).toThrow(/keyword and text/);
  });
});

describe('fuzzy', () => {
  it('counts edits', () => {
    hit({ fuzzy: { tags: { value: 'ponny', fuzziness: 1 } } });
    miss({ fuzzy: { tags: { value: 'pooony', fuzziness: 1 } } });
    hit({ fuzzy: { tags: { value: 'pooony', fuzziness: 2 } } });
    hit({ fuzzy: { tags: { value: 'soloo' } } }); // AUTO: 5 chars → 1 edit
    miss({ fuzzy: { tags: { value: 'sl' } } }); // AUTO: 2 chars → exact only
  });

  it('counts a transposition as one edit unless disabled', () => {
    hit({ fuzzy: { tags: { value: 'opny', fuzziness: 1 } } });
    miss({ fuzzy: { tags: { value: 'opny', fuzziness: 1, transpositions: false } } });
  });

  it('truncates fuzziness below 1 to no edit, as OpenSearch 2.x does', () => {
    miss({ fuzzy: { tags: { value: 'rainbow dosh', fuzziness: 0.8 } } });
    miss({ fuzzy: { tags: { value: 'pont', fuzziness: 0.5 } } });
    hit({ fuzzy: { tags: { value: 'pony', fuzziness: 0.8 } } });
  });

  it('honours prefix_length', () => {
    hit({ fuzzy: { tags: { value: 'pont', fuzziness: 1, prefix_length: 3 } } });
    miss({ fuzzy: { tags: { value: 'bony', fuzziness: 1, prefix_length: 1 } } });
  });
});

describe('match_phrase', () => {
  it('matches analyzed terms in order and adjacent', () => {
    hit({ match_phrase: { description: 'Rainbow Dash' } });
    hit({ match_phrase: { description: 'running fast' } });
    miss({ match_phrase: { description: 'dash rainbow' } });
    miss({ match_phrase: { description: 'rainbow fast' } });
  });

  it('stems both sides', () => {
    hit({ match_phrase: { description: 'the pony is watching' } });
    hit({ match_phrase: { description: 'ponies watch' } }, { description: 'Ponies watched the sky' });
  });

  it('keeps the gap of a removed stop word, as OpenSearch positions do', () => {
    hit({ match_phrase: { description: 'Dash is Running' } });
    hit({ match_phrase: { description: 'Dash a Running' } });
    miss({ match_phrase: { description: 'dash running' } });
  });

  it('honours slop', () => {
    hit({ match_phrase: { description: { query: 'dash running', slop: 1 } } });
    hit({ match_phrase: { description: { query: 'rainbow fast', slop: 3 } } });
    miss({ match_phrase: { description: { query: 'rainbow fast', slop: 2 } } });
    miss({ match_phrase: { description: { query: 'dash rainbow', slop: 1 } } });
    hit({ match_phrase: { description: { query: 'dash rainbow', slop: 2 } } });
  });

  it('does not span the values of a multi-valued field', () => {
    const doc = { description: ['a rainbow', 'dash away'] };
    check({ match_phrase: { description: 'rainbow dash' } }, doc, false);
    check({ match_phrase: { description: 'dash away' } }, doc, true);
  });

  it('matches a single-term phrase anywhere', () => {
    hit({ match_phrase: { description: 'CLOUD' } });
  });

  it('matches nothing for a stop-words-only phrase unless zero_terms_query is all', () => {
    miss({ match_phrase: { description: 'the' } });
    hit({ match_phrase: { description: { query: 'the', zero_terms_query: 'all' } } });
  });

  it('is an exact term on keyword fields', () => {
    check({ match_phrase: { tags: 'rainbow dash' } }, image, true, true);
    // a dynamically mapped string is text, so without a mapping the phrase is analyzed
    check({ match_phrase: { tags: 'Rainbow Dash' } }, image, false, true);
  });

  it('never matches a missing field', () => {
    miss({ match_phrase: { description: 'anything' } }, { id: 1 });
  });
});

describe('match', () => {
  it('matches any analyzed term by default', () => {
    hit({ match: { description: 'dragons clouds' } });
    miss({ match: { description: 'dragons griffons' } });
  });

  it('operator and requires every term', () => {
    hit({ match: { description: { query: 'clouds ponies', operator: 'and' } } });
    miss({ match: { description: { query: 'clouds dragons', operator: 'and' } } });
  });

  it('honours minimum_should_match', () => {
    hit({ match: { description: { query: 'clouds ponies dragons', minimum_should_match: 2 } } });
    miss({ match: { description: { query: 'clouds dragons griffons', minimum_should_match: 2 } } });
  });

  it('supports fuzziness', () => {
    hit({ match: { description: { query: 'clowds', fuzziness: 1 } } });
    miss({ match: { description: { query: 'clowds' } } });
  });

  it('is an exact term on keyword and numeric fields', () => {
    check({ match: { tags: 'rainbow dash' } }, image, true, true);
    hit({ match: { score: '150' } });
    miss({ match: { score: '15' } });
  });
});

