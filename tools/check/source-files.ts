/**
 * The source files the checks read: every TypeScript file under a folder, declaration files,
 * `node_modules` and hidden folders left out.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const SOURCE = /\.(ts|mts|cts|tsx)$/;

/** Every TypeScript file under `dir`. */
export function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) found.push(...sourceFiles(path));
    } else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      found.push(path);
    }
  }
  return found;
}
