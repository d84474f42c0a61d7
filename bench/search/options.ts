/**
 * The command line of the search benchmark (see `bench/search.ts`) and the targets its figures
 * are held to.
 */
import { parseArgs } from 'node:util';

export const TARGETS = { p50: 5, p99: 50, speedup: 10, rssMb: 1500, reindexS: 120 };

export type SearchBenchOptions = ReturnType<typeof searchBenchOptions>;

export function searchBenchOptions() {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    strict: true,
    options: {
      images: { type: 'string' },
      rebuild: { type: 'boolean' },
      http: { type: 'boolean' },
      'no-http': { type: 'boolean' },
      seconds: { type: 'string' },
      runs: { type: 'string' },
      'baseline-runs': { type: 'string' },
      connections: { type: 'string' },
      variants: { type: 'string' },
      engine: { type: 'string' },
      'opensearch-url': { type: 'string' },
    },
  });
  const int = (v: string | undefined, name: string, fallback: number, min: number) => {
    if (v === undefined) return fallback;
    if (!/^\d+$/.test(v.replaceAll('_', '')) || Number(v.replaceAll('_', '')) < min) throw new Error(`--${name} must be a whole number ≥ ${min}`);
    return Number(v.replaceAll('_', ''));
  };
  return {
    images: int(values.images, 'images', 1_000_000, 1000),
    rebuild: values.rebuild === true,
    http: !values['no-http'],
    seconds: int(values.seconds, 'seconds', 10, 1),
    runs: int(values.runs, 'runs', 320, 1),
    baselineRuns: int(values['baseline-runs'], 'baseline-runs', 48, 1),
    connections: connectionCounts(values.connections),
    variants: int(values.variants, 'variants', 16, 2),
    opensearchUrl: opensearchUrl(values.engine, values['opensearch-url']),
  };
}

/** The node to compare with under `--engine opensearch`, else undefined. */
function opensearchUrl(engine: string | undefined, url: string | undefined): string | undefined {
  if (engine === undefined) {
    if (url !== undefined) throw new Error('--opensearch-url needs --engine opensearch');
    return undefined;
  }
  if (engine !== 'opensearch') throw new Error('--engine takes opensearch (the embedded engine always runs)');
  return url ?? process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200';
}

/** `--connections 4,16`: the counts of concurrent connections of the HTTP runs, in order. */
function connectionCounts(v: string | undefined): number[] {
  if (v === undefined) return [4, 16];
  const counts = v.split(',').map((x) => x.trim());
  if (counts.length === 0 || counts.some((x) => !/^\d+$/.test(x) || Number(x) < 1)) throw new Error('--connections must be whole numbers ≥ 1, comma-separated');
  return counts.map(Number);
}
