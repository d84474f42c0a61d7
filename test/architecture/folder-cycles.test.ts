/**
 * The folder rule of `npm run check` (tools/check/folder-cycles.ts), run as a program on small
 * trees: one whose folders lean on each other only through different modules (no module cycle,
 * which dependency-cruiser's `circular` would miss), one whose arrows all go one way, and the
 * project itself.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const made: string[] = [];

/** A project tree of the given files, each importing the given specifiers (type-only for some). */
function tree(files: Record<string, string[]>): string {
  const dir = mkdtempSync(join(tmpdir(), 'tagwise-folders-'));
  made.push(dir);
  for (const [file, imports] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    const lines = imports.map((path, i) => (i % 2 === 0 ? `import { a${i} } from '${path}';` : `import type {\n  T${i},\n} from '${path}';`));
    writeFileSync(join(dir, file), `${lines.join('\n')}\n// import { nothing } from '../http/app.js' (a comment, not an import)\nexport const here = 1;\n`);
  }
  return dir;
}

function check(dir: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'tools/check/folder-cycles.ts'), dir], { cwd: root, encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('folder cycles among src/*', () => {
  it('fails on src/dumps → src/http → src/dumps made of different modules, and prints the cycle with its imports', () => {
    const dir = tree({
      'src/dumps/write.ts': ['../http/views/tag.js', './layout.js'],
      'src/dumps/layout.ts': [],
      'src/http/views/tag.ts': [],
      'src/http/routes/dumps.ts': ['../../dumps/layout.js', '../views/tag.js'],
      'src/lib/random.ts': [],
      'src/config.ts': ['./lib/random.js'],
    });
    const { status, output } = check(dir);
    expect(status).toBe(1);
    expect(output).toContain('folder cycle: src/dumps → src/http → src/dumps');
    expect(output).toContain('src/dumps/write.ts → src/http/views/tag.ts');
    expect(output).toContain('src/http/routes/dumps.ts → src/dumps/layout.ts');
    expect(output).not.toContain('src/lib');
  });

  it('finds a cycle through three folders and through a type-only import', () => {
    const dir = tree({
      'src/a/one.ts': ['./two.js', '../b/one.js'],
      'src/a/two.ts': [],
      'src/b/one.ts': ['../c/one.js'],
      'src/c/one.ts': ['../lib/x.js', '../a/two.js'],
      'src/lib/x.ts': [],
    });
    const { status, output } = check(dir);
    expect(status).toBe(1);
    expect(output).toContain('folder cycle: src/a → src/b → src/c → src/a');
  });

  it('passes when every arrow between folders goes one way (files at the root of src/ stand for themselves)', () => {
    const dir = tree({
      'src/main.ts': ['./http/app.js', './config.js'],
      'src/config.ts': [],
      'src/http/app.ts': ['../api/views/tag.js', '../config.js', '../dumps/layout.js'],
      'src/api/views/tag.ts': ['../../contexts/tags/types.js', '../../config.js'],
      'src/dumps/write.ts': ['../api/views/tag.js', './layout.js'],
      'src/dumps/layout.ts': [],
      'src/contexts/tags/types.ts': [],
    });
    const { status, output } = check(dir);
    expect(output).toContain('no cycle');
    expect(status).toBe(0);
  });

  it('holds for the project itself', () => {
    const { status, output } = check(root);
    expect(output).toContain('no cycle');
    expect(status).toBe(0);
  });
});
