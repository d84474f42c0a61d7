/**
 * The HTTP part of the search benchmark: the real app on the engine as `npm start` runs it (on a
 * thread of its own, filled by a reindex), its answers checked against the engine's, then driven
 * by each count of keep-alive connections beside a bare Hono answer (the stack's ceiling), and
 * at half the first count's throughput offered on a schedule (open loop).
 */
import { Indexer } from '../../indexer/index.js';
import type { Database } from '../../src/db/client.js';
import { EngineThread } from '../../src/search/embedded/public.js';
import type { SearchResult } from '../../src/search/engine.js';
import type { DriverResult } from '../harness/driver.js';
import { drive, startApp, startHonoCeiling, type Server } from '../harness/http.js';
import { cpuMs, loadAverage } from '../harness/stats.js';
import { type Mix, PER_PAGE, type MixQuery } from './mix.js';

export interface HttpRun {
  connections: number;
  app: DriverResult;
  ceiling: DriverResult;
  appCpuPerReq: number;
  appPgCpuPerReq?: number;
  ceilingCpuPerReq: number;
}

export interface HttpFigures {
  reindexS: number;
  runs: HttpRun[];
  checked: number;
  agreed: number;
  halfLoad: { rate: number; connections: number; result: DriverResult };
}

export interface HttpPhaseInput {
  boardDir: string;
  db: Database;
  mix: Mix;
  /** The embedded engine's answers, which the endpoint's must equal. */
  engineFirst: Map<MixQuery, SearchResult>;
  connections: number[];
  seconds: number;
  pgCpu: () => number | undefined;
  /** Servers started here, for the caller to close. */
  servers: Server[];
  /** Load averages by phase; `http` and `httpEnd` are set here. */
  loads: Record<string, string>;
  log: (m: string) => void;
}

export async function runHttpPhase(input: HttpPhaseInput): Promise<HttpFigures> {
  const { boardDir, db, mix, engineFirst, seconds, pgCpu, servers, loads, log } = input;
  // the app's engine as `npm start` makes it: on its own thread, filled by a reindex
  loads.http = loadAverage();
  const threaded = new EngineThread();
  servers.push({ origin: '', close: () => threaded.close() });
  const threadIndexer = new Indexer({ db, engine: threaded });
  await threadIndexer.ensureIndexes();
  log(`  reindex on the engine thread (load ${loadAverage()})`);
  const r0 = performance.now();
  await threadIndexer.reindex(['images']);
  const threadReindexS = (performance.now() - r0) / 1000;
  const app = await startApp(boardDir, db, threaded);
  servers.push(app);
  const ceiling = await startHonoCeiling();
  servers.push(ceiling);
  const pathOf = (m: MixQuery) =>
    `/api/v1/json/search/images?q=${encodeURIComponent(m.q)}&per_page=${PER_PAGE}${m.page > 1 ? `&page=${m.page}` : ''}${m.sf ? `&sf=${encodeURIComponent(m.sf)}` : ''}`;
  // the endpoint answers what the engine answers (first variant of each kind)
  let checked = 0;
  let agreed = 0;
  for (const kind of mix.kinds) {
    const q = mix.queries.find((x) => x.kind === kind)!;
    const res = await fetch(`${app.origin}${pathOf(q)}`);
    const body = (await res.json()) as { images?: Array<{ id: number }>; total?: number; error?: string };
    checked++;
    const mine = engineFirst.get(q)!;
    if (res.status === 200 && body.total === mine.total && JSON.stringify(body.images?.map((i) => i.id)) === JSON.stringify(mine.ids)) agreed++;
    else log(`  HTTP answer differs for ${kind}: status ${res.status}, total ${body.total} vs ${mine.total}${body.error ? `, ${body.error}` : ''}`);
  }
  const paths = mix.queries.map(pathOf);
  // as the engine's own runs are: after every query was answered twice (a server that has
  // been up a while has compiled its code and cached its pages' images)
  for (let w = 0; w < 2; w++) for (const path of paths) await (await fetch(`${app.origin}${path}`)).arrayBuffer();
  const runs: HttpRun[] = [];
  for (const connections of input.connections) {
    log(`  HTTP: ${connections} connections, ${seconds} s on the app (load ${loadAverage()})`);
    let c0 = cpuMs();
    const pgA = pgCpu();
    const appResult = await drive({ origin: app.origin, paths, connections, seconds: seconds, warmupSeconds: 2 });
    const appCpuPerReq = (cpuMs() - c0) / appResult.allRequests;
    const pgB = pgCpu();
    log(`  HTTP: ${connections} connections, ${seconds} s on the bare Hono ceiling (load ${loadAverage()})`);
    c0 = cpuMs();
    const ceilingResult = await drive({ origin: ceiling.origin, paths: ['/'], connections, seconds: seconds, warmupSeconds: 2 });
    runs.push({
      connections,
      app: appResult,
      ceiling: ceilingResult,
      appCpuPerReq,
      ...(pgA === undefined || pgB === undefined ? {} : { appPgCpuPerReq: (pgB - pgA) / appResult.allRequests }),
      ceilingCpuPerReq: (cpuMs() - c0) / ceilingResult.allRequests,
    });
  }
  // Latency at a load the server keeps up with: half the closed loop's throughput at the first
  // count, offered on a schedule. In a closed loop every connection waits behind the others,
  // so its p50 is about connections × service time whatever the endpoint costs.
  const first = runs[0]!;
  const rate = Math.max(1, Math.round(first.app.rps / 2));
  log(`  HTTP: ${rate} requests/s over ${first.connections} connections, ${seconds} s on the app (load ${loadAverage()})`);
  const halfLoad = await drive({ origin: app.origin, paths, connections: first.connections, seconds: seconds, warmupSeconds: 2, rate });
  loads.httpEnd = loadAverage();
  return { reindexS: threadReindexS, runs, checked, agreed, halfLoad: { rate, connections: first.connections, result: halfLoad } };
}
