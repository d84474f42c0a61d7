/**
 * The project's programs as the tests run them: built once per test run into `.test-programs/`
 * (esbuild, one module graph with shared chunks), so that each of the hundreds of service starts
 * and CLI runs of the suite loads a few files instead of a thousand modules through the
 * TypeScript loader (about 2 s of CPU a start, and again in the engine's thread).
 *
 * The build mirrors the source tree: `src/main.ts` is built to `.test-programs/src/main.js`, and
 * every module's `import.meta.url` is the URL its built copy would have there. So the paths a
 * module makes from its own URL (its migrations, the engine's thread host, the decode sandbox's
 * child, the browser scripts it bundles) land on a built entry or on a link to the source file,
 * and a CLI still knows it is the program run. Packages stay outside the bundle and resolve from
 * the repository's node_modules, as they do for the sources.
 *
 * A program not built, or run outside a test run that built it (`npm run test:quick`, a
 * benchmark using these helpers), runs from its source through tsx, as `npm run` does: a build
 * left from an earlier run may be stale. The run's workers know of its build by the variable
 * `BUILT_PROGRAMS`, which they inherit from the global setup.
 */
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

/** The repository's root, the working directory of every program run. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = join(ROOT, '.test-programs');

/** The programs the tests start, and the entries those programs start in threads and children. */
const ENTRIES = [
  'src/main.ts',
  'indexer/cli.ts',
  'src/cli/admin.ts',
  'src/cli/dump.ts',
  'src/cli/import.ts',
  'src/cli/query.ts',
  'src/cli/seed.ts',
  'src/cli/storage.ts',
  'src/search/embedded/thread/engine-thread-host.ts',
  'src/media/sandbox/child.ts',
];

/** Files and folders the programs find beside their own modules, linked into the mirror. */
const LINKED = ['src/db/migrations', 'src/search/embedded/thread/engine-thread-boot.mjs', 'src/http/docs-page', 'src/http/search-page'];

/** The built copy of a source file (relative to the root), which need not exist. */
const builtPath = (source: string) => join(OUT, source.replace(/\.ts$/, '.js'));

/** Each module's `import.meta.url` becomes the URL of its place in the mirror. */
const mirroredMetaUrl: Plugin = {
  name: 'mirrored-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      // the file is read once here; handing it back as it is spares esbuild a second read
      const text = await readFile(args.path, 'utf8');
      const url = JSON.stringify(pathToFileURL(builtPath(relative(ROOT, args.path))).href);
      return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
    });
  },
};

/** Build the programs (global setup, once per run). */
export async function buildPrograms(): Promise<void> {
  rmSync(OUT, { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: ENTRIES,
    outbase: ROOT,
    outdir: OUT,
    outExtension: { '.js': '.js' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    logLevel: 'warning',
    plugins: [mirroredMetaUrl],
  });
  for (const source of LINKED) {
    const link = join(OUT, source);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(ROOT, source), link);
  }
  process.env.BUILT_PROGRAMS = OUT;
}

/**
 * The node arguments that run a program (a path relative to the root): its built copy when the
 * run built one, else its source through tsx.
 */
export function programArgs(source: string): string[] {
  const built = builtPath(source);
  // source maps: stack traces in a program's output name the source files
  return process.env.BUILT_PROGRAMS === OUT && existsSync(built) ? ['--enable-source-maps', built] : ['--import', 'tsx', source];
}
