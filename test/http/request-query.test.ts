/**
 * One query parameter read from the query string's parameters kept by the query string: the same
 * value Hono's `c.req.query(name)` gives, whatever the spelling, asked once or again.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { queryParam } from '../../src/http/request/request-query.js';

const NAMES = ['key', 'filter_id', 'q', 'page', 'per_page', 'a b', 'constructor', '__proto__', 'toString'];

const QUERY_STRINGS = [
  '',
  '?',
  '?key=abc',
  '?q=safe%2C+solo&key=k1&key=k2',
  '?k%65y=encoded-name&key=plain',
  '?key&filter_id=',
  '?filter_id=3&filter_id=4',
  '?q=a+b&per_page=50&page=2',
  '?a+b=1&a%20b=2',
  '?constructor=x&toString',
  '?__proto__=p',
  '?q=%E2%9C%93&bad=%E0%A4%A',
  '?=v&&key=after-empty',
];

describe('queryParam', () => {
  it('gives what c.req.query(name) gives, the first time and from memory', async () => {
    const app = new Hono();
    app.get('/', (c) => c.json(NAMES.map((name) => [queryParam(c, name) ?? null, c.req.query(name) ?? null])));
    for (let round = 0; round < 2; round++) {
      for (const qs of QUERY_STRINGS) {
        const pairs = (await (await app.request(`/${qs}`)).json()) as [string | null, string | null][];
        pairs.forEach(([mine, hono], i) => expect(mine, `${qs} ${NAMES[i]}`).toBe(hono));
      }
    }
  });
});
