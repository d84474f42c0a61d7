/**
 * The rule "every cache registered" (`tools/check/caches.ts`): a small tree with one module of
 * each kind, of which exactly the ones that hold a cache without registering it are reported; a
 * stale listing is reported too; and the project itself keeps the rule, the embedded engine's
 * caches without an exemption.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findCacheBreaches } from '../../tools/check/caches.js';

const root = mkdtempSync(join(tmpdir(), 'tagwise-cache-rule-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

const REGISTERS = `import { processCaches } from '../lib/cache-registry.js';\nconst counts = processCaches.register({ name: 'x', budget: { entries: 1 }, invalidatedBy: [], held: () => ({ entries: 0 }) });\n`;

describe('every cache registered', () => {
  it('reports exactly the caches that do not register, and stale listings', () => {
    write('src/lib/bounded-map.ts', 'export class BoundedMap {}\n');
    // named as a cache, registers: fine
    write('src/feature/kept-cache.ts', REGISTERS);
    // named as a cache, registers nothing: reported
    write('src/feature/forgotten-cache.ts', 'export const kept = new Map<string, number>();\n');
    // uses the bounded map without registering: reported
    write('src/feature/memo.ts', "import { BoundedMap } from '../lib/bounded-map.js';\nexport const memo = new BoundedMap({ maxEntries: 10 });\n");
    // uses the bounded map and registers: fine
    write('src/feature/memo-registered.ts', `import { BoundedMap } from '../lib/bounded-map.js';\n${REGISTERS}`);
    // a Map bounded by hand: reported
    write('src/feature/by-hand.ts', 'const m = new Map<string, number>();\nexport function put(k: string) {\n  if (m.size >= 100) m.clear();\n  m.set(k, 1);\n}\n');
    write('src/feature/fifo.ts', 'const m = new Map<string, number>();\nexport function put(k: string) {\n  if (m.size >= 100) m.delete(m.keys().next().value!);\n}\n');
    // a plain module: fine
    write('src/feature/plain.ts', 'export const sizes = new Map<string, number>();\nexport const big = () => sizes.size >= 3;\n');
    // a listed module: not reported
    write('src/feature/listed-cache.ts', 'export const kept = new Map();\n');

    const breaches = findCacheBreaches(root, { 'src/feature/listed-cache.ts': 'a reason', 'src/feature/gone-cache.ts': 'a reason' });
    expect(breaches.map((b) => b.file).sort()).toEqual([
      'src/feature/by-hand.ts',
      'src/feature/fifo.ts',
      'src/feature/forgotten-cache.ts',
      'src/feature/gone-cache.ts',
      'src/feature/memo.ts',
    ]);
    expect(breaches.find((b) => b.file === 'src/feature/gone-cache.ts')?.problem).toMatch(/remove it from the list/);
  });

  it('holds for the project', () => {
    expect(findCacheBreaches(join(import.meta.dirname, '../..'))).toEqual([]);
  });

  it("holds for the embedded engine's caches with no module exempted", () => {
    const breaches = findCacheBreaches(join(import.meta.dirname, '../..'), {});
    expect(breaches.filter((b) => b.file.startsWith('src/search/embedded/'))).toEqual([]);
  });
});
