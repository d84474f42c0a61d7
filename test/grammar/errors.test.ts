/** Every error message of reference §1.8, with where it points. */
import { describe, expect, it } from 'vitest';
import { QueryError } from '../../grammar/index.js';
import { queryError, type Options } from './helpers.js';

const logged: Options = { role: 'user', context: { userId: 1 } };

describe('error messages (reference §1.8)', () => {
  it.each<[string, string, number, Options?]>([
    [')', 'Imbalanced parentheses.', 0],
    ['(safe', 'Imbalanced parentheses.', 0],
    ['safe)', 'junk at end of expression: )', 4],
    ['(a) b', 'junk at end of expression: b', 4],
    ['a^2^3', 'junk at end of expression: 3', 3],
    ['safe,', 'Expected a term.', 5],
    ['--safe', 'Expected a term.', 1],
    ['x^-1', 'Boost value must be non-negative.', 1],
    ['uploader.gt:x', 'range specified for uploader', 0],
    ['description.gt:x', 'range specified for description', 0],
    ['animated.gt:true', 'range specified for animated', 0],
    ['ip.gt:1.2.3.4', 'range specified for ip', 0, { role: 'moderator' }],
    ['uploader_id.gt:1', 'range specified for uploader_id', 0],
    ['gallery_id.gt:1', 'range specified for gallery_id', 0],
    ['width.gt:5~1', 'multiple ranges specified for width', 0],
    ['aspect_ratio.lt:1~1', 'multiple ranges specified for aspect_ratio', 0],
    ['width:1.5', "expected a signed integer, like `3' or `-10', starting at: .5", 7],
    ['aspect_ratio:x', "expected a real number, like `2.7182818' or `-10', starting at: x", 13],
    ['uploader_id:x', "expected a numeric value, like `3' or `10', starting at: x", 12],
    ['animated:x', "expected a boolean, like `true' or `false', starting at: x", 9],
    ['ip:x', 'expected a valid IPv4 or IPv6 address and optional CIDR prefix, starting at: x', 3, { role: 'moderator' }],
    ['created_at:x', "expected a RFC3339 datetime fragment, like `2019-01-01', or relative date, like `3 days ago', starting at: x", 11],
    ['created_at:2015-13', 'invalid date format in input, parsed as 2015, 13', 18],
    ['created_at:1001 years ago', 'invalid date format in input; requested time 31567536000 seconds is over a millennium ago', 25],
    ['my:faves', "You must be logged in to use `my' queries.", 3],
    ['my:x', "Unknown `my' value.", 3, logged],
    ['my:watched', 'Recursive watchlists are not allowed.', 3, { role: 'user', context: { userId: 1, watch: true } }],
    ['gallery_id:x', "Invalid gallery `x'.", 11],
    ['filter_id:5', 'Invalid filter `5`.', 10],
    ['filter_id:5', 'Filter queries inside filters are not allowed.', 10, { context: { filter: true } }],
  ])('%j → %s', (input, message, offset, options) => {
    const error = queryError(input, options);
    expect(error).toBeInstanceOf(QueryError);
    expect(error.name).toBe('QueryError');
    expect([error.message, error.position.offset]).toEqual([message, offset]);
  });

  it.each([42, ['safe'], { a: 1 }, false])('%j: search query is not a string', (input) => {
    expect(queryError(input).message).toBe('search query is not a string');
  });
});

describe('error positions', () => {
  it('point into the query text across lines', () => {
    const error = queryError('safe,\n\tsolo,\r\n  width:abc');
    expect(error.position).toEqual({ offset: 22, line: 3, column: 9 });
  });

  it('count quoted escapes', () => {
    expect(queryError('"width:\\"x"').position.offset).toBe(7);
    expect(queryError('x, "width:  1.5"').position.offset).toBe(13);
    expect(queryError('"a\\\\b", "width:\\\\1"').position.offset).toBe(15);
  });

  it('point at the value of a custom field', () => {
    expect(queryError('safe, my:  nope', logged).position.offset).toBe(11);
  });
});

describe('which error comes first', () => {
  it('reports a bad value before a later syntax error (terms compile as they are parsed)', () => {
    expect(queryError('width:abc, )').message).toBe("expected a signed integer, like `3' or `-10', starting at: abc");
    expect(queryError('(safe, width:abc').message).toBe("expected a signed integer, like `3' or `-10', starting at: abc");
    expect(queryError('safe, width:abc, width:1.5').message).toBe("expected a signed integer, like `3' or `-10', starting at: abc");
  });

  it('reports a syntax error before a later bad value', () => {
    expect(queryError(', width:abc').message).toBe('Expected a term.');
    expect(queryError('a^-1, width:abc').message).toBe('Boost value must be non-negative.');
  });

  it('reports leftover tokens without compiling them', () => {
    expect(queryError('(a) width:abc').message).toBe('junk at end of expression: width:abc');
  });

  it('checks a value before the range of a numeric field, and the range before a custom value', () => {
    expect(queryError('uploader_id.gt:x').message).toBe("expected a numeric value, like `3' or `10', starting at: x");
    expect(queryError('my.gt:faves').message).toBe('range specified for my');
  });
});
