/**
 * The query mix, kind by kind: each query timed on the embedded engine (after a warm-up; the
 * first run of each variant shown apart) and as the SQL baseline, and their answers compared
 * (random order: the engine's page against its own random function over the matches SQL finds).
 */
import type { Sql } from 'postgres';
import { idRangeBits, IdPermutation } from '../../src/search/embedded/query/score.js';
import type { SearchResult } from '../../src/search/engine.js';
import { ascending, cpuMs, loadAverage } from '../harness/stats.js';
import { allMatchesSql, type Mix, PER_PAGE, type MixQuery } from './mix.js';

export interface KindStats {
  kind: string;
  example: string;
  hitsMean: number;
  engine: number[];
  engineCpu: number[];
  /** The first run of each variant, before the warm-up. */
  first: number[];
  baseline: number[];
  baselinePgCpuPerQuery: number | undefined;
  sameTotal: number;
  sameIds: number;
  compared: number;
  idsNote: string;
}

export interface QueryMixInput {
  mix: Mix;
  runs: number;
  baselineRuns: number;
  engineSearch: (m: MixQuery) => Promise<SearchResult>;
  baselineSearch: (m: MixQuery) => Promise<SearchResult>;
  /** The baseline's connection. */
  base: Sql;
  hiddenTagIds: number[];
  /** CPU time of the PostgreSQL server so far, when it can be read. */
  pgCpu: () => number | undefined;
  log: (m: string) => void;
}

export async function runQueryMix(input: QueryMixInput): Promise<{ kinds: KindStats[]; engineFirst: Map<MixQuery, SearchResult> }> {
  const { mix, runs, baselineRuns, engineSearch, baselineSearch, base, hiddenTagIds, pgCpu, log } = input;
  const kinds: KindStats[] = [];
  const engineFirst = new Map<MixQuery, SearchResult>();
  for (const kind of mix.kinds) {
    const qs = mix.queries.filter((q) => q.kind === kind);
    log(`  ${kind}: engine ${runs} runs, baseline ${baselineRuns} runs (load ${loadAverage()})`);
    // engine: warm-up (JIT, lazily built sort columns and caches), then the timed runs
    // the first run of each variant pays for lazily built structures and fills the caches of
    // expansions (wildcards): shown apart as "first max"
    const first: number[] = [];
    for (const q of qs) {
      const s0 = performance.now();
      engineFirst.set(q, await engineSearch(q));
      first.push(performance.now() - s0);
    }
    for (let w = 0; w < 2; w++) for (const q of qs) await engineSearch(q);
    const times: number[] = [];
    const cpu: number[] = [];
    let hits = 0;
    for (let i = 0; i < runs; i++) {
      const q = qs[i % qs.length]!;
      const c0 = cpuMs();
      const s0 = performance.now();
      const r = await engineSearch(q);
      times.push(performance.now() - s0);
      cpu.push(cpuMs() - c0);
      hits += r.total;
    }
    // baseline: one warm-up run per variant (its answer is compared), then the timed runs
    let sameTotal = 0;
    let sameIds = 0;
    let idsNote = '';
    for (const q of qs) {
      const sqlResult = await baselineSearch(q);
      const mine = engineFirst.get(q)!;
      if (mine.total === sqlResult.total) sameTotal++;
      if (q.sf?.startsWith('random:')) continue;
      if (JSON.stringify(mine.ids) === JSON.stringify(sqlResult.ids)) sameIds++;
    }
    const baseTimes: number[] = [];
    const pgBefore = pgCpu();
    for (let i = 0; i < baselineRuns; i++) {
      const q = qs[i % qs.length]!;
      const s0 = performance.now();
      await baselineSearch(q);
      baseTimes.push(performance.now() - s0);
    }
    const pgAfter = pgCpu();
    if (qs[0]?.sf?.startsWith('random:')) {
      // md5 order in SQL is not the engine's random function: check the engine's page against
      // its own function applied to every match SQL finds
      const [{ maxId } = { maxId: 0 }] = await base.unsafe<{ maxId: number }[]>('select coalesce(max(id), 0)::int as "maxId" from images');
      for (const q of qs) {
        const [row] = await base.unsafe<{ ids: number[] }[]>(allMatchesSql(q, hiddenTagIds));
        const perm = new IdPermutation(Number(q.sf!.slice(7)), idRangeBits(maxId));
        const scored = (row?.ids ?? []).map((id) => ({ id, s: perm.rankOf(id) }));
        scored.sort((a, b) => b.s - a.s || b.id - a.id);
        const expected = scored.slice((q.page - 1) * PER_PAGE, q.page * PER_PAGE).map((x) => x.id);
        if (JSON.stringify(expected) === JSON.stringify(engineFirst.get(q)!.ids)) sameIds++;
      }
      idsNote = ' (engine random fn on SQL matches)';
    }
    kinds.push({
      kind,
      example: qs[0]!.q + (qs[0]!.sf ? ` sf=${qs[0]!.sf}` : '') + (qs[0]!.page > 1 ? ` page=${qs[0]!.page}` : ''),
      hitsMean: hits / runs,
      engine: ascending(times),
      engineCpu: ascending(cpu),
      first,
      baseline: ascending(baseTimes),
      baselinePgCpuPerQuery: pgBefore === undefined || pgAfter === undefined ? undefined : (pgAfter - pgBefore) / baselineRuns,
      sameTotal,
      sameIds,
      compared: qs.length,
      idsNote,
    });
  }
  return { kinds, engineFirst };
}
