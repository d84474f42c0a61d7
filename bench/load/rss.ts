/**
 * The service's resident memory over a run: VmRSS of `/proc/<pid>/status` sampled every few
 * seconds, and the figures the load benchmark reports (start, max, end, and when it levelled:
 * the first sample from which the RSS stays within 5 % of its maximum, so a steady state that
 * creeps up slowly counts as levelling late).
 */
import { readFileSync } from 'node:fs';

export interface RssFigures {
  startMb: number;
  maxMb: number;
  endMb: number;
  /** Seconds from the first sample to the one the RSS levelled at. */
  levelledAfterS: number;
  samples: number;
}

/** VmRSS of a process in MiB, or undefined when it cannot be read (not Linux, process gone). */
export function rssMb(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples of (seconds since start, MiB) reduced to the benchmark's figures. */
export function rssFigures(samples: readonly (readonly [number, number])[]): RssFigures | undefined {
  if (samples.length === 0) return undefined;
  const maxMb = Math.max(...samples.map(([, mb]) => mb));
  // the last sample below 95 % of the maximum: the RSS levelled at the one after it
  let last = -1;
  for (let i = 0; i < samples.length; i++) if (samples[i]![1] < maxMb * 0.95) last = i;
  const levelled = samples[Math.min(last + 1, samples.length - 1)]!;
  return { startMb: samples[0]![1], maxMb, endMb: samples.at(-1)![1], levelledAfterS: levelled[0] - samples[0]![0], samples: samples.length };
}

/** Samples the RSS of `pid` every `everyMs` until `stop()`, which gives the figures. */
export function sampleRss(pid: number, everyMs = 5000): { stop(): RssFigures | undefined; now(): number | undefined } {
  const started = performance.now();
  const samples: [number, number][] = [];
  const take = () => {
    const mb = rssMb(pid);
    if (mb !== undefined) samples.push([(performance.now() - started) / 1000, mb]);
  };
  take();
  const timer = setInterval(take, everyMs);
  timer.unref();
  return {
    now: () => samples.at(-1)?.[1],
    stop() {
      clearInterval(timer);
      take();
      return rssFigures(samples);
    },
  };
}
