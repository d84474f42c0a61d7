/**
 * Bundles the documentation page's script (client.ts) for the browser with esbuild, once per
 * process, when the page first asks for it: the page is served from TypeScript that tsc checks
 * (`npm run typecheck` includes this folder's tsconfig), with no generated file to go stale.
 */
import { buildSync } from 'esbuild';
import { fileURLToPath } from 'node:url';

export function bundleDocsScript(openapiPath: string): string {
  const result = buildSync({
    entryPoints: [fileURLToPath(new URL('./client.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2020',
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
    define: { OPENAPI_PATH: JSON.stringify(openapiPath) },
  });
  const [file] = result.outputFiles;
  if (!file) throw new Error('esbuild wrote no bundle for the docs page');
  return file.text;
}
