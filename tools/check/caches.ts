/**
 * `npm run check`'s rule "every cache registered": a module under `src/` that holds a cache
 * registers it (`src/lib/cache-registry.ts`: its name, budget, invalidating changes, hits and
 * misses), or is listed below with the reason it does not yet.
 *
 * A module holds a cache when its file name says so (`*cache*.ts`), when it uses the bounded map
 * (`src/lib/bounded-map.ts`), or when it bounds a `Map` by hand (a line that tests a `.size`
 * against a bound and then clears the map or drops its oldest key): that is a cache without a
 * policy, which should use the bounded map and register. A module registers when it calls
 * `.register(` with a registry it imports from `lib/cache-registry`.
 *
 * Usage: `tsx tools/check/caches.ts [root]` (default: the working directory); exit 1 on a breach.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Modules that hold a cache and do not register it yet, by path from the root, with why. */
export const UNREGISTERED: Readonly<Record<string, string>> = {
  'src/caches/read-caches.ts': 'builds the app registry and hands it to each cache it makes',
  'src/lib/cache-registry.ts': 'the registry the caches join; holds none',
  'src/observability/cache-series.ts': 'reports the registered caches on /metrics; holds none',
  'src/http/render/image-cache-warmer.ts': 'fills the image cache; holds none',
  'src/search/indexes/document-cache.ts': 'a reindex-scoped type; to review after the search move',
  'src/limits/token-buckets.ts': 'limiter state, not a cache: a caller forgotten gets a full budget',
  'src/limits/shared-buckets.ts': 'limiter state, not a cache: a caller forgotten gets a full budget',
  'src/limits/refusal-memory.ts': 'limiter state, not a cache: a client forgotten counts as refused first',
};

export interface CacheBreach {
  file: string;
  problem: string;
}

const USES_BOUNDED_MAP = /from\s+['"][^'"]*\/lib\/bounded-map\.js['"]/;
const IMPORTS_REGISTRY = /from\s+['"][^'"]*(?:lib\/|\.\/)cache-registry\.js['"]/;
const REGISTERS = /\.register\(/;
/** A `Map` bounded by hand: its size tested against a bound, then cleared or its oldest key dropped. */
const HAND_BOUNDED = /\.size\s*>=?\s*[\w.#]+\)?\s*[^;]*(?:\.clear\(\)|\.keys\(\)\.next\(\))/;

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Why `text` counts as holding a cache, or undefined. */
function holdsCache(file: string, text: string): string | undefined {
  const name = file.slice(file.lastIndexOf('/') + 1);
  if (/cache/i.test(name)) return 'named as a cache';
  if (USES_BOUNDED_MAP.test(text)) return 'uses the bounded map';
  if (text.split('\n').some((line) => HAND_BOUNDED.test(line))) return 'bounds a Map by hand (use src/lib/bounded-map.ts)';
  return undefined;
}

/** The modules under `root/src` that hold a cache and neither register it nor are listed, and stale listings. */
export function findCacheBreaches(root: string, unregistered: Readonly<Record<string, string>> = UNREGISTERED): CacheBreach[] {
  const breaches: CacheBreach[] = [];
  const seen = new Set<string>();
  for (const path of sourceFiles(join(root, 'src'))) {
    const file = relative(root, path).split(sep).join('/');
    const text = readFileSync(path, 'utf8');
    const why = holdsCache(file, text);
    if (why === undefined) continue;
    seen.add(file);
    if (file in unregistered) continue;
    if (!(REGISTERS.test(text) && IMPORTS_REGISTRY.test(text))) breaches.push({ file, problem: `holds a cache (${why}) and registers none` });
  }
  for (const file of Object.keys(unregistered)) {
    if (!seen.has(file)) breaches.push({ file, problem: 'listed as unregistered but holds no cache (or is gone): remove it from the list' });
  }
  return breaches;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const breaches = findCacheBreaches(process.argv[2] ?? process.cwd());
  for (const b of breaches) console.error(`${b.file}: ${b.problem}`);
  if (breaches.length > 0) {
    console.error(`\n${breaches.length} cache rule breach(es): register each cache with src/lib/cache-registry.ts (see tools/check/caches.ts).`);
    process.exit(1);
  }
  console.log('every cache registered');
}
