/**
 * `npx tsx bench/harness/profile.ts FILE.cpuprofile`: where a server's CPU went, by stage of a
 * request. Each sample of a V8 CPU profile (`node --cpu-prof`, see `npm run bench -- load
 * --cpu-prof DIR`) is charged to the innermost frame on its stack that belongs to a stage, so a
 * builtin (JSON.stringify, a hash, a buffer copy) counts for the code that called it. Prints
 * milliseconds and shares by stage, and the heaviest functions by self time. `--last S` counts
 * only the last S seconds of the profile (the load, without the start-up before it); `--skip-end S`
 * leaves out its last S seconds (a server left idle before it was stopped); `--from S` starts S
 * seconds after the profile began (one phase of a run: the load bench prints when each began).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  endTime: number;
  startTime: number;
}

/** Stages, tried in order on each frame from the innermost out; the first match wins. */
const STAGES: Array<[string, (url: string, fn: string) => boolean]> = [
  ['garbage collection', (_u, fn) => fn === '(garbage collector)'],
  ['idle', (_u, fn) => fn === '(idle)'],
  ['logging (pino, request log)', (u) => /node_modules\/pino|middleware\/request-log/.test(u)],
  ['metrics (prom-client)', (u) => /node_modules\/prom-client|middleware\/metrics|routes\/metrics/.test(u)],
  ['parse/compile q (grammar)', (u) => /\/grammar\/|node_modules\/chevrotain|contexts\/search\/filter\.|query-cache/.test(u)],
  ['filter resolution', (u) => /middleware\/filter|filter-row-cache|contexts\/filters/.test(u)],
  ['key lookup, bans (auth, limits)', (u) => /middleware\/auth|middleware\/limits|src\/limits|contexts\/users|caller-state/.test(u)],
  ['engine round trip (thread)', (u) => /search\/embedded\/thread|search\/requests|search\/engine|^node:internal\/worker/.test(u)],
  ['row loading (PostgreSQL client, contexts)', (u) => /node_modules\/postgres|node_modules\/drizzle-orm|src\/contexts\//.test(u)],
  ['JSON rendering (views, render caches)', (u) => /src\/http\/views|src\/http\/render|src\/http\/spoiler/.test(u)],
  ['middleware and routes (cache headers, zod, hono)', (u) => /src\/http\/|node_modules\/hono\/|node_modules\/zod/.test(u)],
  ['HTTP server (node:http, @hono/node-server)', (u) => /^node:_http|^node:http|node_modules\/@hono\/node-server/.test(u)],
  ['(program)', (_u, fn) => fn === '(program)'],
];

/** For a stack none of the stages claims: sockets and streams, then the rest of Node. */
const FALLBACKS: Array<[string, (url: string, fn: string) => boolean]> = [
  ['sockets and streams (no caller known)', (u) => /^node:(net|stream|internal\/(stream|streams|net))/.test(u)],
  ['other node internals', (u) => u.startsWith('node:')],
];

export function breakdown(profile: Profile, lastSeconds = Number.POSITIVE_INFINITY, skipEndSeconds = 0, fromSeconds = 0): { stages: Map<string, number>; selfByFunction: Map<string, number>; totalMs: number } {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  // the innermost frame a stage claims; failing that, the innermost a fallback claims
  const memo = [new Map<number, string | null>(), new Map<number, string | null>()];
  const claimed = (id: number, list: typeof STAGES, k: number): string | null => {
    const known = memo[k]!.get(id);
    if (known !== undefined) return known;
    const { url, functionName } = byId.get(id)!.callFrame;
    const own = list.find(([, test]) => test(url, functionName))?.[0];
    const up = parent.get(id);
    const stage = own ?? (up === undefined ? null : claimed(up, list, k));
    memo[k]!.set(id, stage);
    return stage;
  };
  const stageOfNode = (id: number): string => claimed(id, STAGES, 0) ?? claimed(id, FALLBACKS, 1) ?? 'unattributed (engine code, start-up)';
  const stages = new Map<string, number>();
  const selfByFunction = new Map<string, number>();
  let totalMs = 0;
  const to = profile.endTime - skipEndSeconds * 1e6;
  const from = Math.max(to - lastSeconds * 1e6, profile.startTime + fromSeconds * 1e6);
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    at += profile.timeDeltas[i] ?? 0;
    if (at < from || at > to) continue;
    const id = profile.samples[i]!;
    totalMs += ms;
    const stage = stageOfNode(id);
    stages.set(stage, (stages.get(stage) ?? 0) + ms);
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const name = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|src|grammar)\//, '$1/')}:${lineNumber + 1}`;
    selfByFunction.set(name, (selfByFunction.get(name) ?? 0) + ms);
  }
  return { stages, selfByFunction, totalMs };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ''))) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { last: { type: 'string' }, 'skip-end': { type: 'string' }, from: { type: 'string' } } });
  const file = positionals[0];
  if (!file) throw new Error('usage: tsx bench/harness/profile.ts [--last S] [--skip-end S] [--from S] FILE.cpuprofile');
  const last = values.last === undefined ? Number.POSITIVE_INFINITY : Number(values.last);
  const { stages, selfByFunction, totalMs } = breakdown(JSON.parse(readFileSync(file, 'utf8')) as Profile, last, Number(values['skip-end'] ?? 0), Number(values.from ?? 0));
  const busy = totalMs - (stages.get('idle') ?? 0);
  console.log(`${file}: ${(totalMs / 1000).toFixed(1)} s profiled, ${(busy / 1000).toFixed(1)} s busy`);
  for (const [stage, ms] of [...stages].sort((a, b) => b[1] - a[1])) {
    if (stage === 'idle') continue;
    console.log(`  ${stage.padEnd(52)} ${ms.toFixed(0).padStart(7)} ms ${((ms / busy) * 100).toFixed(1).padStart(5)}%`);
  }
  console.log('heaviest functions by self time:');
  for (const [name, ms] of [...selfByFunction].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`  ${ms.toFixed(0).padStart(7)} ms  ${name}`);
  }
}
