import { describe, expect, it } from 'vitest';
import { type Query, formatUtc } from '../../grammar/index.js';
import { dsl, NOW, queryError, tag, type Options } from './helpers.js';

function expectError(input: string, message: string, offset: number, options: Options = {}) {
  const error = queryError(input, options);
  expect([error.message, error.position.offset]).toEqual([message, offset]);
}

describe('literal values: terms, fuzz, wildcards (reference §1.5)', () => {
  it.each<[string, Query]>([
    ['Safe', tag('safe')],
    ['"  Safe  "', tag('safe')],
    ['safe~2', { fuzzy: { tags: { value: 'safe', fuzziness: 2 } } }],
    ['safe~0.8', { fuzzy: { tags: { value: 'safe', fuzziness: 0.8 } } }],
    ['safe~2.5', { fuzzy: { tags: { value: 'safe', fuzziness: 2.5 } } }],
    ['safe~01', { fuzzy: { tags: { value: 'safe', fuzziness: 1 } } }],
    ['safe~2~3', { fuzzy: { tags: { value: 'safe~2', fuzziness: 3 } } }],
    ['~2', { fuzzy: { tags: { value: '', fuzziness: 2 } } }],
    ['safe~', tag('safe~')],
    ['safe~a', tag('safe~a')],
    ['safe~2a', tag('safe~2a')],
    ['safe\\~2', tag('safe~2')],
    ['saf*', { wildcard: { tags: 'saf*' } }],
    ['sa?e', { wildcard: { tags: 'sa?e' } }],
    ['s**f***e', { wildcard: { tags: 's*f*e' } }],
    ['*', { match_all: {} }],
    ['**', { match_all: {} }],
    ['"* "', { wildcard: { tags: '*' } }],
    ['a\\*b*', { wildcard: { tags: 'a*b*' } }],
    ['saf*~2', { wildcard: { tags: 'saf*' } }],
    ['\\*', tag('*')],
    ['\\?', tag('?')],
    ['a\\\\b', tag('a\\b')],
    ['a\\b', tag('ab')],
    ['"a\\*b"', tag('a*b')],
    ['"a*b"', { wildcard: { tags: 'a*b' } }],
  ])('%j', (input, expected) => {
    expect(dsl(input)).toEqual(expected);
  });
});

describe('literal values: field detection (reference §1.4) and normalisation (§1.6)', () => {
  it.each<[string, Query]>([
    ['Twi_*', { wildcard: { tags: 'twi *' } }],
    ['Artist: Foo_Bar', tag('artist:foo_bar')],
    ['Twilight_Sparkle', tag('twilight sparkle')],
    ['Twilight_Sparkle~1', { fuzzy: { tags: { value: 'twilight sparkle', fuzziness: 1 } } }],
    ['  twilight   sparkle', tag('twilight sparkle')],
    ['rainbow dash’s hat', tag("rainbow dash's hat")],
    ['faves_count:5', tag('faves count:5')],
    ['tags:safe', tag('tags:safe')],
    ['id\\:5', tag('id:5')],
    ['artist:foo', tag('artist:foo')],
    ['WIDTH:5', tag('width:5')],
    ['width :5', tag('width :5')],
    ['"uploader:Some User"', { term: { uploader: 'some user' } }],
    ['uploader:"Some User"', { term: { uploader: '"some user"' } }],
    ['uploader:  Some User  ', { term: { uploader: 'some user' } }],
    ['uploader:', { term: { uploader: '' } }],
    ['uploader:Foo_Bar', { term: { uploader: 'foo_bar' } }],
    ['uploader.eq:Foo', { term: { uploader: 'foo' } }],
    ['uploader:*', { match_all: {} }],
    ['uploader:Fo*', { wildcard: { uploader: 'fo*' } }],
    ['uploader:Foo~1', { fuzzy: { uploader: { value: 'foo', fuzziness: 1 } } }],
    ['file_name:Foo.PNG', { term: { file_name: 'Foo.PNG' } }],
    ['file_name:  Foo*.PNG ', { wildcard: { file_name: 'Foo*.PNG' } }],
    ['faved_by:Some User', { term: { favourited_by_users: 'some user' } }],
    ['source_url:HTTPS://Example.com/*', { wildcard: { source_url: 'https://example.com/*' } }],
    ['description:Hello World', { match_phrase: { description: 'hello world' } }],
    ['description:Hello World~2', { match_phrase: { description: 'hello world' } }],
    ['description:fo*', { wildcard: { description: 'fo*' } }],
    ['description:*', { match_all: {} }],
  ])('%j', (input, expected) => {
    expect(dsl(input)).toEqual(expected);
  });

  it('searches full text by default on text indexes', () => {
    expect(dsl('Hello World', { index: 'comments' })).toEqual({ match_phrase: { body: 'hello world' } });
    expect(dsl('Hello World~2', { index: 'posts' })).toEqual({ match_phrase: { body: 'hello world' } });
    expect(dsl('Chartreuse Alpacas', { index: 'galleries' })).toEqual({ term: { title: 'chartreuse alpacas' } });
  });

  it.each(['uploader.gt:x', 'uploader.lte:x~2', 'description.gte:x', 'description.lt:x~1', 'file_name.gt:*'])(
    '%j: no ranges on text',
    (input) => {
      const field = input.slice(0, input.indexOf('.'));
      expectError(input, `range specified for ${field}`, 0);
    },
  );
});

describe('int values', () => {
  it.each<[string, Query]>([
    ['width:100', { term: { width: 100 } }],
    ['width:+100', { term: { width: 100 } }],
    ['width:-5', { term: { width: -5 } }],
    ['width:007', { term: { width: 7 } }],
    ['width: 100 ', { term: { width: 100 } }],
    ['width.eq:100', { term: { width: 100 } }],
    ['width.gt:100', { range: { width: { gt: 100 } } }],
    ['width.gte:100', { range: { width: { gte: 100 } } }],
    ['width.lt:100', { range: { width: { lt: 100 } } }],
    ['width.lte:100', { range: { width: { lte: 100 } } }],
    ['width:100~5', { range: { width: { gte: 95, lte: 105 } } }],
    ['width.eq:100~0', { range: { width: { gte: 100, lte: 100 } } }],
    ['score:-10~20', { range: { score: { gte: -30, lte: 10 } } }],
    ['width:99999999999', { term: { width: 2147483647 } }],
    ['width:-99999999999', { term: { width: -2147483648 } }],
    ['width:2147483647~10', { range: { width: { gte: 2147483637, lte: 2147483647 } } }],
    ['width:0~99999999999999999999999', { range: { width: { gte: -2147483648, lte: 2147483647 } } }],
    ['tag_count.lt:3', { range: { tag_count: { lt: 3 } } }],
    ['spoiler_tag_count:0', { term: { spoiler_tag_count: 0 } }],
  ])('%j', (input, expected) => {
    expect(dsl(input)).toEqual(expected);
  });

  const INT = "expected a signed integer, like `3' or `-10', starting at: ";
  it.each<[string, string, number]>([
    ['width:1.5', `${INT}.5`, 7],
    ['width:abc', `${INT}abc`, 6],
    ['width:', 'expected a signed integer, like `3\' or `-10\'', 6],
    ['width:5~', `${INT}~`, 7],
    ['width:5~-1', `${INT}~-1`, 7],
    ['width:5~1x', `${INT}x`, 9],
    ['width:+-5', `${INT}+-5`, 6],
    ['width:  x', `${INT}x`, 8],
    ['width.gt:5~1', 'multiple ranges specified for width', 0],
  ])('%j → %s', (input, message, offset) => expectError(input, message, offset));
});

describe('float values', () => {
  it.each<[string, Query]>([
    ['aspect_ratio:1', { term: { aspect_ratio: 1 } }],
    ['aspect_ratio:1.0', { term: { aspect_ratio: 1 } }],
    ['aspect_ratio:1.5', { term: { aspect_ratio: 1.5 } }],
    ['aspect_ratio:-1.25', { term: { aspect_ratio: -1.25 } }],
    ['aspect_ratio:+2', { term: { aspect_ratio: 2 } }],
    ['aspect_ratio:1.5~0.5', { range: { aspect_ratio: { gte: 1, lte: 2 } } }],
    ['aspect_ratio:2~1', { range: { aspect_ratio: { gte: 1, lte: 3 } } }],
    ['wilson_score.gte:0.5', { range: { wilson_score: { gte: 0.5 } } }],
    ['duration.lt:10', { range: { duration: { lt: 10 } } }],
    ['duration.gt:1.5', { range: { duration: { gt: 1.5 } } }],
    ['duration.lte:2', { range: { duration: { lte: 2 } } }],
    ['aspect_ratio:1e999'.replace('1e999', '9'.repeat(400)), { term: { aspect_ratio: Number.MAX_VALUE } }],
  ])('%j', (input, expected) => {
    expect(dsl(input)).toEqual(expected);
  });

  const FLOAT = "expected a real number, like `2.7182818' or `-10', starting at: ";
  it.each<[string, string, number]>([
    ['aspect_ratio:.5', `${FLOAT}.5`, 13],
    ['aspect_ratio:1.', `${FLOAT}.`, 14],
    ['aspect_ratio:1~', `${FLOAT}~`, 14],
    ['aspect_ratio:1~x', `${FLOAT}~x`, 14],
    ['aspect_ratio:1~0.5x', `${FLOAT}x`, 18],
    ['aspect_ratio:1e5', `${FLOAT}e5`, 14],
    ['aspect_ratio:wide', `${FLOAT}wide`, 13],
    ['aspect_ratio.gt:1~1', 'multiple ranges specified for aspect_ratio', 0],
  ])('%j → %s', (input, message, offset) => expectError(input, message, offset));
});

describe('numeric (ID) values', () => {
  it.each<[string, Query]>([
    ['uploader_id:5', { term: { uploader_id: 5 } }],
    ['uploader_id:007', { term: { uploader_id: 7 } }],
    ['uploader_id:99999999999', { term: { uploader_id: 2147483647 } }],
    ['duplicate_id:12', { term: { duplicate_id: 12 } }],
    ['faved_by_id:3', { term: { favourited_by_user_ids: 3 } }],
  ])('%j', (input, expected) => {
    expect(dsl(input)).toEqual(expected);
  });

  const NUM = "expected a numeric value, like `3' or `10', starting at: ";
  it.each<[string, string, number]>([
    ['uploader_id:-5', `${NUM}-5`, 12],
    ['uploader_id:+5', `${NUM}+5`, 12],
    ['uploader_id:5~1', `${NUM}~1`, 13],
    ['uploader_id:5.0', `${NUM}.0`, 13],
    ['uploader_id:x', `${NUM}x`, 12],
    ['uploader_id.gt:5', 'range specified for uploader_id', 0],
    ['uploader_id.gt:x', `${NUM}x`, 15],
  ])('%j → %s', (input, message, offset) => expectError(input, message, offset));
});

describe('bool values', () => {
  it.each<[string, Query]>([
    ['animated:true', { term: { animated: 'true' } }],
    ['animated:false', { term: { animated: 'false' } }],
    ['processed: true ', { term: { processed: 'true' } }],
    ['thumbnails_generated.eq:false', { term: { thumbnails_generated: 'false' } }],
  ])('%j', (input, expected) => {
    expect(dsl(input)).toEqual(expected);
  });

  const BOOL = "expected a boolean, like `true' or `false', starting at: ";
  it.each<[string, string, number]>([
    ['animated:True', `${BOOL}True`, 9],
    ['animated:yes', `${BOOL}yes`, 9],
    ['animated:1', `${BOOL}1`, 9],
    ['animated:truex', `${BOOL}x`, 13],
    ['animated.gt:true', 'range specified for animated', 0],
  ])('%j → %s', (input, message, offset) => expectError(input, message, offset));
});

describe('date values (reference §1.7)', () => {
  const range = (gte: string, lt: string): Query => ({ range: { created_at: { gte, lt } } });
  it.each<[string, Query]>([
    ['created_at:2015', range('2015-01-01T00:00:00Z', '2016-01-01T00:00:00Z')],
    ['created_at:2016', range('2016-01-01T00:00:00Z', '2017-01-01T00:00:00Z')],
    ['created_at:2015-02', range('2015-02-01T00:00:00Z', '2015-03-01T00:00:00Z')],
    ['created_at:2016-02', range('2016-02-01T00:00:00Z', '2016-03-01T00:00:00Z')],
    ['created_at:2015-12', range('2015-12-01T00:00:00Z', '2016-01-01T00:00:00Z')],
    ['created_at:2015-04-01', range('2015-04-01T00:00:00Z', '2015-04-02T00:00:00Z')],
    ['created_at:2015-04-01T', range('2015-04-01T00:00:00Z', '2015-04-02T00:00:00Z')],
    ['created_at:2015-04-01T12', range('2015-04-01T12:00:00Z', '2015-04-01T13:00:00Z')],
    ['created_at:2015-04-01t12:30', range('2015-04-01T12:30:00Z', '2015-04-01T12:31:00Z')],
    ['"created_at:2015-04-01 12:30:45"', range('2015-04-01T12:30:45Z', '2015-04-01T12:30:46Z')],
    ['created_at:2015-04-01T23:59:59', range('2015-04-01T23:59:59Z', '2015-04-02T00:00:00Z')],
    ['created_at:2015-04-01Z', range('2015-04-01T00:00:00Z', '2015-04-02T00:00:00Z')],
    ['created_at:2015-04-01T12z', range('2015-04-01T12:00:00Z', '2015-04-01T13:00:00Z')],
    ['created_at:2015-04-01+05', range('2015-03-31T19:00:00Z', '2015-04-01T19:00:00Z')],
    ['created_at:2015-04-01T12:00-05:30', range('2015-04-01T17:30:00Z', '2015-04-01T17:31:00Z')],
    ['created_at:2015+01:00', range('2014-12-31T23:00:00Z', '2015-12-31T23:00:00Z')],
    ['created_at:0000', range('0000-01-01T00:00:00Z', '0001-01-01T00:00:00Z')],
    ['updated_at.lte:2015-04', { range: { updated_at: { lte: '2015-05-01T00:00:00Z' } } }],
    ['updated_at.gt:2015-04', { range: { updated_at: { gt: '2015-05-01T00:00:00Z' } } }],
    ['updated_at.gte:2015-04', { range: { updated_at: { gte: '2015-04-01T00:00:00Z' } } }],
    ['updated_at.lt:2015-04', { range: { updated_at: { lt: '2015-04-01T00:00:00Z' } } }],
    ['first_seen_at.eq:2015', { range: { first_seen_at: { gte: '2015-01-01T00:00:00Z', lt: '2016-01-01T00:00:00Z' } } }],
    // Bounds past year 9999 or before year 0000 stay inside the range, meaning the same there.
    ['created_at:9999', { range: { created_at: { gte: '9999-01-01T00:00:00Z', lte: '9999-12-31T23:59:59Z' } } }],
    ['created_at:9999-12-31T23:59:59-23:59', { range: { created_at: { gt: '9999-12-31T23:59:59Z', lte: '9999-12-31T23:59:59Z' } } }],
    ['updated_at.lte:9999-12-31', { range: { updated_at: { lte: '9999-12-31T23:59:59Z' } } }],
    ['first_seen_at.gt:9999-12', { range: { first_seen_at: { gt: '9999-12-31T23:59:59Z' } } }],
    ['created_at.gte:9999-12-31T23:59:59-23:59', { range: { created_at: { gt: '9999-12-31T23:59:59Z' } } }],
    ['created_at.lt:9999-12-31T23:59:59-23:59', { range: { created_at: { lte: '9999-12-31T23:59:59Z' } } }],
    ['created_at:0000+01:00', { range: { created_at: { gte: '0000-01-01T00:00:00Z', lt: '0000-12-31T23:00:00Z' } } }],
    ['created_at.lt:0000+01:00', { range: { created_at: { lt: '0000-01-01T00:00:00Z' } } }],
    ['created_at.gte:0000+01:00', { range: { created_at: { gte: '0000-01-01T00:00:00Z' } } }],
  ])('%j', (input, expected) => {
    expect(dsl(input)).toEqual(expected);
  });

  const ago = (seconds: number) => formatUtc(Math.floor(NOW / 1000) - seconds);
  it.each<[string, number]>([
    ['0 seconds ago', 0],
    ['1 second ago', 1],
    ['3 days ago', 3 * 86_400],
    ['1 day ago', 86_400],
    ['2 minutes ago', 120],
    ['5 hours ago', 5 * 3_600],
    ['2 weeks ago', 2 * 604_800],
    ['1 month ago', 2_592_000],
    ['6 months ago', 6 * 2_592_000],
    ['1 year ago', 31_536_000],
    ['1000 years ago', 31_536_000_000],
  ])('relative %j is the unit-long window before N units ago', (value, seconds) => {
    const unit = { second: 1, minute: 60, hour: 3600, day: 86_400, week: 604_800, month: 2_592_000, year: 31_536_000 }[
      value.split(' ')[1]!.replace(/s$/, '') as 'day'
    ];
    expect(dsl(`created_at:${value}`)).toEqual(range(ago(seconds + unit), ago(seconds)));
    expect(dsl(`created_at.gte:${value}`)).toEqual({ range: { created_at: { gte: ago(seconds + unit) } } });
    expect(dsl(`created_at.lte:${value}`)).toEqual({ range: { created_at: { lte: ago(seconds) } } });
  });

  it('uses the clock of the context, truncated to the second', () => {
    expect(dsl('created_at:3 days ago', { context: { now: new Date('2024-05-05T10:00:00.900Z') } })).toEqual(
      range('2024-05-01T10:00:00Z', '2024-05-02T10:00:00Z'),
    );
  });

  const DATE = "expected a RFC3339 datetime fragment, like `2019-01-01', or relative date, like `3 days ago', starting at: ";
  it.each<[string, string, number]>([
    ['created_at:2015-4-1', `${DATE}2015-4-1`, 11],
    ['created_at:15', `${DATE}15`, 11],
    ['created_at:2015-04-01T12:30:45.5', `${DATE}2015-04-01T12:30:45.5`, 11],
    ['created_at:2015-04-01-0530', `${DATE}2015-04-01-0530`, 11],
    ['created_at:2015-04-05:30', `${DATE}2015-04-05:30`, 11],
    ['created_at:yesterday', `${DATE}yesterday`, 11],
    ['created_at:3 Days ago', `${DATE}3 Days ago`, 11],
    ['"created_at:3  days ago"', `${DATE}3  days ago`, 12],
    ['created_at:3 days  ago', `${DATE}3 days  ago`, 11],
    ['created_at:3 dayss ago', `${DATE}3 dayss ago`, 11],
    ['created_at:3 days', `${DATE}3 days`, 11],
    ['created_at:a day ago', `${DATE}a day ago`, 11],
    ['created_at:2015-13', 'invalid date format in input, parsed as 2015, 13', 18],
    ['created_at:2015-00', 'invalid date format in input, parsed as 2015, 0', 18],
    ['created_at:2015-02-29', 'invalid date format in input, parsed as 2015, 2, 29', 21],
    ['created_at:2015-04-01T24', 'invalid date format in input, parsed as 2015, 4, 1, 24', 24],
    ['created_at:2015-04-01T12:60', 'invalid date format in input, parsed as 2015, 4, 1, 12, 60', 27],
    ['created_at:2015-04-01+25:00', 'invalid date format in input, parsed as 2015, 4, 1, +, 25, 0', 27],
    ['created_at:2015-13-01-05', 'invalid date format in input, parsed as 2015, 13, 1, -, 5', 24],
    [
      'created_at:1001 years ago',
      'invalid date format in input; requested time 31567536000 seconds is over a millennium ago',
      25,
    ],
    [
      'created_at:99999999999999999999 seconds ago',
      'invalid date format in input; requested time 99999999999999999999 seconds is over a millennium ago',
      43,
    ],
  ])('%j → %s', (input, message, offset) => expectError(input, message, offset));
});

describe('ip values', () => {
  const mod: Options = { role: 'moderator' };
  it.each<[string, string]>([
    ['ip:192.168.1.1', '192.168.1.1'],
    ['ip:0.0.0.0', '0.0.0.0'],
    ['ip:255.255.255.255', '255.255.255.255'],
    ['ip:192.168.1.0/24', '192.168.1.0/24'],
    ['ip:10.0.0.0/8', '10.0.0.0/8'],
    ['ip:1.2.3.4/0', '1.2.3.4/0'],
    ['ip:1.2.3.4/32', '1.2.3.4/32'],
    ['ip:::1', '::1'],
    ['ip:::', '::'],
    ['ip:2001:db8::/32', '2001:db8::/32'],
    ['ip:2001:DB8::1', '2001:DB8::1'],
    ['ip:1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    ['ip:1::2:3', '1::2:3'],
    ['ip:1:2:3:4:5:6:7::', '1:2:3:4:5:6:7::'],
    ['ip:::ffff:1.2.3.4', '::ffff:1.2.3.4'],
    ['ip:fe80::1/128', 'fe80::1/128'],
    ['ip:fe80::/10', 'fe80::/10'],
  ])('%j', (input, value) => {
    expect(dsl(input, mod)).toEqual({ term: { ip: value } });
  });

  const IP = 'expected a valid IPv4 or IPv6 address and optional CIDR prefix, starting at: ';
  const MAPPED = 'a CIDR prefix is not allowed on an IPv4-mapped IPv6 address (write the IPv4 address, e.g. 10.0.0.0/8)';
  it.each<[string, string, number]>([
    ['ip:256.1.1.1', `${IP}256.1.1.1`, 3],
    ['ip:1.2.3', `${IP}1.2.3`, 3],
    ['ip:01.2.3.4', `${IP}01.2.3.4`, 3],
    ['ip:1.2.3.256', `${IP}6`, 11],
    ['ip:1.2.3.4/33', `${IP}3`, 12],
    ['ip:1.2.3.4/', `${IP}/`, 10],
    ['ip:::1/129', `${IP}9`, 9],
    ['ip:1:2:3:4:5:6:7:8:9', `${IP}:9`, 18],
    ['ip:12345::', `${IP}12345::`, 3],
    ['ip:fe80::1%eth0', `${IP}%eth0`, 10],
    ['ip:localhost', `${IP}localhost`, 3],
    ['ip.gt:1.2.3.4', 'range specified for ip', 0],
    // a prefix on an IPv4-mapped address, however written: the engines refuse it
    ['ip:::ffff:10.0.0.0/104', MAPPED, 18],
    ['ip:::ffff:10.0.0.0/8', MAPPED, 18],
    ['ip:::FFFF:a00:0/120', MAPPED, 15],
    ['ip:0::ffff:10.0.0.0/128', MAPPED, 19],
  ])('%j → %s', (input, message, offset) => expectError(input, message, offset, mod));

  it('a prefix on other IPv6 addresses near the mapped block is still a value', () => {
    expect(dsl('ip:::fffe:10.0.0.0/104', mod)).toEqual({ term: { ip: '::fffe:10.0.0.0/104' } });
    expect(dsl('ip:::ffff:0:10.0.0.0/104', mod)).toEqual({ term: { ip: '::ffff:0:10.0.0.0/104' } });
  });
});
