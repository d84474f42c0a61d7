/** Percentiles, CPU clocks of this process and of the PostgreSQL server, and plain text tables. */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** Nearest-rank percentile of an ascending list (q in 0..1); NaN when empty. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

export const ascending = (xs: number[]): number[] => xs.sort((a, b) => a - b);

export const mean = (xs: readonly number[]): number => (xs.length === 0 ? Number.NaN : xs.reduce((s, x) => s + x, 0) / xs.length);

/** CPU time (user + system) of this process in milliseconds. */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export function loadAverage(): string {
  return loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on every Linux we run on). */
const TICKS_PER_SECOND = 100;

function statFields(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid ..."; comm may hold spaces and parentheses
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** CPU milliseconds (user + system) used so far by a process; undefined if it is gone. */
export function processCpuMs(pid: number): number | undefined {
  const f = statFields(pid);
  return f ? ((Number(f[11]) + Number(f[12])) * 1000) / TICKS_PER_SECOND : undefined;
}

/**
 * CPU milliseconds used so far by a PostgreSQL server: the postmaster, its live children (backends,
 * background workers) and its reaped children (parallel workers that came and went). Linux only;
 * undefined elsewhere. Differences of two readings are accurate to about 10 ms per process.
 */
export function serverCpuMs(postmasterPid: number): number | undefined {
  const own = statFields(postmasterPid);
  if (!own) return undefined;
  // fields after ")": state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = statFields(Number(entry));
    if (!f || Number(f[1]) !== postmasterPid) continue;
    ticks += Number(f[11]) + Number(f[12]);
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** The postmaster's pid of a cluster directory (first line of postmaster.pid). */
export const ms = (x: number | null | undefined, digits = 2): string =>
  x === null || x === undefined || Number.isNaN(x) ? '-' : x.toFixed(digits);

