/**
 * The search routes' parameters kept by query string: the same values `validQuery` gives (the
 * route's contract), one frozen object for the same query string, and a refused value 400 every
 * time it comes, never kept.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/answers/errors.js';
import { SearchParams } from '../../src/http/request/search-params.js';
import { routeQuery } from '../../src/api/schemas/params.js';
import { validQuery } from '../../src/http/request/validate.js';

/** An app answering what each way of reading gives, as JSON, and a refusal with its status. */
function app() {
  const kept = new SearchParams(routeQuery.searchImages);
  const seen: object[] = [];
  const a = new Hono();
  a.onError((err, c) => c.json({ error: err.message }, err instanceof ApiError ? (err.status as 400) : 500));
  a.get('/kept', (c) => {
    const params = kept.read(c);
    seen.push(params);
    return c.json(params);
  });
  a.get('/plain', validQuery(routeQuery.searchImages), (c) => c.json(c.req.valid('query')));
  return { a, seen };
}

const QUERIES = [
  '',
  'q=safe',
  'q=safe%2C+solo&page=2&per_page=50&sf=created_at&sd=asc',
  'q=%E2%98%85&per_page=abc&page=-3',
  'q=a&q=b',
  'q[]=x',
  'q=x&sd=sideways',
  'q=x&del=only&hidden=1&filter_id=7&limit=3&key=',
];

describe('SearchParams', () => {
  it('reads each query string as validQuery does, answers and refusals alike', async () => {
    const { a } = app();
    const statuses = new Set<number>();
    for (const query of QUERIES) {
      const plain = await a.request(`/plain?${query}`);
      statuses.add(plain.status);
      for (let i = 0; i < 2; i++) {
        const kept = await a.request(`/kept?${query}`);
        expect({ query, status: kept.status, body: await kept.json() }).toEqual({ query, status: plain.status, body: await plain.clone().json() });
      }
    }
    expect([...statuses].sort()).toEqual([200, 400]);
  });

  it('gives one frozen object for the same query string, another for another', async () => {
    const { a, seen } = app();
    await a.request('/kept?q=safe&page=2');
    await a.request('/kept?q=safe&page=2');
    await a.request('/kept?q=safe&page=3');
    expect(seen).toHaveLength(3);
    expect(seen[1]).toBe(seen[0]);
    expect(seen[2]).not.toBe(seen[0]);
    expect(Object.isFrozen(seen[0])).toBe(true);
  });
});
