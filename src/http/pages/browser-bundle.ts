/**
 * Bundles a page's browser script with esbuild, in process, when the page first asks for it: the
 * pages are served from TypeScript that tsc checks (`npm run typecheck` includes each page's
 * tsconfig), with no generated file to go stale.
 */
import { buildSync } from 'esbuild';
import { fileURLToPath } from 'node:url';

/** The IIFE bundle of `entry` (a file URL), with `define` written in as constants. */
export function bundleBrowserScript(entry: URL, define: Record<string, string> = {}): string {
  const result = buildSync({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2020',
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
    define,
  });
  const [file] = result.outputFiles;
  if (!file) throw new Error(`esbuild wrote no bundle for ${entry.pathname}`);
  return file.text;
}
