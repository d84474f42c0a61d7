import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runQueryCli } from '../../src/cli/query.js';
import { explainQuery } from '../../src/contexts/search/explain.js';
import { assertValidQuery } from '../support/dsl-schema.js';
import { programArgs } from '../support/programs.js';

async function run(args: string[], stdin = '') {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runQueryCli(args, { readStdin: async () => stdin, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

describe('query explain CLI', () => {
  it('prints the DSL of one query', async () => {
    const r = await run(['explain', '--index', 'images', 'safe, solo']);
    expect(r.code).toBe(0);
    expect(r.out.map((l) => JSON.parse(l))).toEqual([
      { index: 'images', query: { bool: { must: [{ term: { tags: 'safe' } }, { term: { tags: 'solo' } }] } } },
    ]);
    assertValidQuery(JSON.parse(r.out[0]!).query);
  });

  it('takes the role and a user ID', async () => {
    expect((await run(['explain', '--index=images', 'ip:1.2.3.4'])).out).toEqual(['{"index":"images","query":{"term":{"tags":"ip:1.2.3.4"}}}']);
    expect((await run(['explain', '--index', 'images', '--role', 'moderator', 'ip:1.2.3.4'])).out).toEqual([
      '{"index":"images","query":{"term":{"ip":"1.2.3.4"}}}',
    ]);
    expect((await run(['explain', '--index', 'comments', '--role=user', '--user-id', '7', 'my:comments'])).out).toEqual([
      '{"index":"comments","query":{"term":{"true_author_id":7}}}',
    ]);
  });

  it('prints an error and exits 1', async () => {
    const r = await run(['explain', '--index', 'images', ')']);
    expect(r).toEqual({ code: 1, out: ['{"error":"Imbalanced parentheses."}'], err: [] });
  });

  it('reads one query per line from stdin, keeps going after errors, exits 1 at the end', async () => {
    const r = await run(['explain', '--index', 'tags'], 'safe\n)\n\nartist:*\n');
    expect(r.code).toBe(1);
    expect(r.out).toEqual([
      '{"index":"tags","query":{"term":{"name":"safe"}}}',
      '{"error":"Imbalanced parentheses."}',
      '{"index":"tags","query":{"match_none":{}}}',
      '{"index":"tags","query":{"wildcard":{"name":"artist:*"}}}',
    ]);
    expect((await run(['explain', '--index', 'tags'], 'a\r\nb')).code).toBe(0);
  });

  it.each([
    [[]],
    [['frobnicate']],
    [['explain']],
    [['explain', '--index', 'users', 'x']],
    [['explain', '--index', 'images', '--role', 'root', 'x']],
    [['explain', '--index', 'images', '--user-id', 'me', 'x']],
    [['explain', '--index', 'images', 'a', 'b']],
    [['explain', '--index']],
    [['explain', '--index', 'images', '--verbose', 'x']],
  ])('refuses %j with usage and exit 2', async (args) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.out).toEqual([]);
    expect(r.err.join('\n')).toMatch(/usage: npm run query -- explain/);
  });

  it('runs as a script', () => {
    const r = spawnSync(process.execPath, [...programArgs('src/cli/query.ts'), 'explain', '--index', 'images', 'width.gt:5'], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('{"index":"images","query":{"range":{"width":{"gt":5}}}}\n');
    const bad = spawnSync(process.execPath, [...programArgs('src/cli/query.ts'), 'explain', '--index', 'images'], {
      encoding: 'utf8',
      input: 'safe\nwidth:x\n',
    });
    expect(bad.status).toBe(1);
    expect(bad.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('explainQuery is what the HTTP layer calls', () => {
    expect(explainQuery('posts', 'subject:Hello', 'anonymous')).toEqual({ index: 'posts', query: { match_phrase: { subject: 'hello' } } });
    expect(() => explainQuery('images', ['x'])).toThrow('search query is not a string');
  });
});
