/**
 * The import rules of .dependency-cruiser.cjs, run on a small tree that breaks each rule once and
 * also takes every allowed arrow: the checker must report exactly the breaking imports.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** Each file of the tree and what it imports. */
const tree: Record<string, string[]> = {
  'grammar/index.ts': ['./parser.js'],
  'grammar/compiler.ts': ['./parser.js'],
  'grammar/parser.ts': ['../src/lib/random.js'],
  'src/lib/random.ts': [],
  'src/lib/table.ts': ['../http/routes/images.js'],
  'src/http/routes/images.ts': [
    '../../../grammar/index.js',
    '../../../grammar/parser.js',
    '../../../grammar/compiler.js',
    '../../../indexer/outbox.js',
    '../../contexts/images/read.js',
    '../../contexts/search/plan.js',
    './tags.js',
  ],
  'src/http/routes/tags.ts': ['../../db/schema/tags.js', '../render/tags.js'],
  'src/http/render/tags.ts': [],
  'src/contexts/search/plan.ts': ['../../../grammar/compiler.js', '../../../grammar/index.js'],
  'src/contexts/images/read.ts': ['../../db/schema/images.js', '../../../grammar/index.js'],
  'src/contexts/images/write.ts': ['../../../indexer/outbox.js', '../../http/routes/tags.js'],
  'src/db/schema/images.ts': [],
  'src/db/schema/tags.ts': [],
  'src/cli/reindex.ts': ['../../indexer/outbox.js'],
  'src/seed/plan.ts': ['../../test/support/fixtures.js', './pick.js'],
  'src/seed/pick.ts': ['./plan.js'],
  'indexer/outbox.ts': ['../src/db/schema/images.js'],
  'test/support/fixtures.ts': ['../../src/lib/random.js', '../../grammar/compiler.js'],
  'test/grammar/parser.test.ts': ['../../grammar/parser.js'],
};

const expected = [
  'grammar-is-pure: grammar/parser.ts → src/lib/random.ts',
  'lib-is-leaf: src/lib/table.ts → src/http/routes/images.ts',
  'grammar-through-index: src/http/routes/images.ts → grammar/parser.ts',
  'routes-not-routes: src/http/routes/images.ts → src/http/routes/tags.ts',
  'search-compiled-in-its-context: src/http/routes/images.ts → grammar/compiler.ts',
  'routes-not-indexer: src/http/routes/images.ts → indexer/outbox.ts',
  'http-through-contexts: src/http/routes/tags.ts → src/db/schema/tags.ts',
  'contexts-know-no-http: src/contexts/images/write.ts → src/http/routes/tags.ts',
  'outbox-behind-contexts: src/cli/reindex.ts → indexer/outbox.ts',
  'outbox-behind-contexts: src/http/routes/images.ts → indexer/outbox.ts',
  'production-not-tests: src/seed/plan.ts → test/support/fixtures.ts',
  'no-cycles: src/seed/pick.ts → src/seed/plan.ts',
].sort();

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tagwise-rules-'));
  for (const [file, imports] of Object.entries(tree)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    // Type-only imports: a cycle through types alone still counts.
    const lines = imports.map((path, i) => `import type * as m${i} from '${path}';\nexport type T${i} = typeof m${i};`);
    writeFileSync(join(dir, file), `${lines.join('\n')}\nexport const here = ${JSON.stringify(file)};\n`);
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const depcruise = (outputType: string) =>
  spawnSync(
    join(root, 'node_modules/.bin/depcruise'),
    ['--config', join(root, '.dependency-cruiser.cjs'), '--output-type', outputType, 'src', 'grammar', 'indexer', 'test'],
    { cwd: dir, encoding: 'utf8' },
  );

describe('dependency rules', () => {
  it('report exactly the imports that break a rule', () => {
    const run = depcruise('json');
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout) as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
    const found = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
    expect(found).toEqual(expected);
  });

  it('fail the check (as `npm run deps` prints it) when one is broken', () => {
    const run = depcruise('err');
    expect(run.stdout).toContain(`${expected.length} dependency violations`);
    expect(run.status).not.toBe(0);
  });
});
