/**
 * A client of a Tagwise cluster as a load balancer-less client sees it, for the cluster suite and
 * `npm run bench -- cluster`: each request goes to one API process in turn and, when it fails (no
 * connection, or a 5xx), is sent once more to another process. A mixed load of reads (image JSON,
 * searches, thumbnails) and one upload by URL a second, and the check that every acknowledged
 * upload is visible everywhere afterwards.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Outcome {
  status: number;
  body: string;
  /** Milliseconds from the first send to the last answer, retry included. */
  ms: number;
  retried: boolean;
}

/** Sends requests to `bases` in turn; a failed one is retried once on the next process. */
export class RetryingClient {
  private turn = 0;
  constructor(private readonly bases: () => string[]) {}

  async request(path: string, init: RequestInit = {}): Promise<Outcome> {
    const bases = this.bases();
    const first = this.turn++ % bases.length;
    const started = performance.now();
    let answer = await send(bases[first]!, path, init);
    let retried = false;
    if (answer.status === 0 || answer.status >= 500) {
      retried = true;
      answer = await send(bases[(first + 1) % bases.length]!, path, init);
    }
    return { ...answer, ms: performance.now() - started, retried };
  }
}

async function send(base: string, path: string, init: RequestInit): Promise<{ status: number; body: string }> {
  try {
    const res = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(30_000) });
    return { status: res.status, body: await res.text() };
  } catch (error) {
    return { status: 0, body: error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? '')}` : String(error) };
  }
}

export interface LoadStats {
  requests: number;
  /** Requests that still failed after their retry, with what they answered. */
  failures: { path: string; status: number; body: string }[];
  retried: number;
  latenciesMs: number[];
  /** Ids of the uploads the cluster acknowledged (2xx, or a retry told "already uploaded: image N"). */
  acked: number[];
  /** Uploads sent and not acknowledged. */
  unacked: number;
}

export interface LoadOptions {
  client: RetryingClient;
  uploaderKey: string;
  /** The tag every upload of this run carries, searched for by the reads. */
  runTag: string;
  imageUrl(seed: number): string;
  /** Concurrent read loops. */
  readers: number;
  /** Uploads per second (one at a time). */
  writesPerSecond: number;
  /** Seed of the first upload's image; each upload takes the next. */
  firstSeed: number;
}

export interface RunningLoad {
  stats: LoadStats;
  /** Stops the loops and resolves when their last requests have answered. */
  stop(): Promise<LoadStats>;
}

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;

/** The id an upload's answer names: its own, or the image it duplicates (a retried upload that was already made). */
function uploadedId(o: Outcome): number | undefined {
  if (o.status >= 200 && o.status < 300) return (JSON.parse(o.body) as { image: { id: number } }).image.id;
  const duplicate = o.retried && o.status === 400 ? /it's image (\d+)/.exec(o.body) : null;
  return duplicate ? Number(duplicate[1]) : undefined;
}

/** Starts the reads and the uploads; `stop()` ends them. */
export function startLoad(o: LoadOptions): RunningLoad {
  const stats: LoadStats = { requests: 0, failures: [], retried: 0, latenciesMs: [], acked: [], unacked: 0 };
  const thumbs = new Map<number, string>();
  let running = true;
  const record = (path: string, outcome: Outcome, ok: boolean) => {
    stats.requests++;
    stats.latenciesMs.push(outcome.ms);
    if (outcome.retried) stats.retried++;
    if (!ok) stats.failures.push({ path, status: outcome.status, body: outcome.body.slice(0, 300) });
  };
  const read = async (path: string) => {
    const outcome = await o.client.request(path);
    record(path, outcome, outcome.status === 200);
    return outcome;
  };
  const readOnce = async () => {
    const kind = Math.random();
    if (kind < 0.4 || stats.acked.length === 0) {
      await read(`/api/v1/json/search/images?q=${encodeURIComponent(o.runTag)}&per_page=25&sf=id&sd=desc`);
    } else if (kind < 0.8 || thumbs.size === 0) {
      const id = pick(stats.acked);
      const got = await read(`/api/v1/json/images/${id}`);
      if (got.status !== 200) return;
      const image = (JSON.parse(got.body) as { image: { thumbnails_generated: boolean; representations: Record<string, string> } }).image;
      if (image.thumbnails_generated) thumbs.set(id, new URL(image.representations.thumb!).pathname);
    } else {
      await read(pick([...thumbs.values()]));
    }
  };
  const readLoop = async () => {
    while (running) await readOnce();
  };
  const writeLoop = async () => {
    const interval = 1000 / o.writesPerSecond;
    for (let n = 0; running; n++) {
      const due = performance.now() + interval;
      const path = `/api/v1/json/images?key=${encodeURIComponent(o.uploaderKey)}`;
      const outcome = await o.client.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: o.imageUrl(o.firstSeed + n), image: { tag_input: `safe, ${o.runTag}, upload ${n}`, description: `upload ${n}` } }),
      });
      const id = uploadedId(outcome);
      record(path, outcome, id !== undefined);
      if (id === undefined) stats.unacked++;
      else stats.acked.push(id);
      await sleep(Math.max(0, due - performance.now()));
    }
  };
  const loops = [writeLoop(), ...Array.from({ length: o.readers }, readLoop)];
  return {
    stats,
    async stop() {
      running = false;
      await Promise.all(loops);
      return stats;
    },
  };
}

/** The p-th percentile (0–100) of `values`, nearest rank. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface ImageJson {
  id: number;
  thumbnails_generated: boolean;
  view_url: string;
  representations: Record<string, string>;
}

async function getJson<T>(url: string): Promise<{ status: number; body: T | undefined }> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(15_000) });
    return { status: res.status, body: res.ok ? ((await res.json()) as T) : (await res.body?.cancel(), undefined) };
  } catch {
    return { status: 0, body: undefined };
  }
}

/** The ids a search for `q` finds on `base`, every page of them. */
export async function searchIds(base: string, q: string): Promise<number[] | undefined> {
  const ids: number[] = [];
  for (let page = 1; ; page++) {
    const got = await getJson<{ images: { id: number }[]; total: number }>(`${base}/api/v1/json/search/images?q=${encodeURIComponent(q)}&per_page=50&page=${page}&sf=id&sd=asc`);
    if (!got.body) return undefined;
    ids.push(...got.body.images.map((i) => i.id));
    if (got.body.images.length < 50 || ids.length >= got.body.total) return ids;
  }
}

export interface Visibility {
  /** Acknowledged uploads missing from any check on any process. */
  lost: number[];
  /** What was missing, one line each (empty when nothing was). */
  problems: string[];
}

/**
 * Whether every acknowledged upload is visible through every process in `bases`, waiting up to
 * `timeoutMs` for processing and indexing to finish: its JSON from each, its full file and
 * thumbnail from each (the same bytes from all), and a search for `runTag` finding exactly the
 * acknowledged uploads on each.
 */
export async function checkVisibility(bases: string[], acked: number[], runTag: string, timeoutMs: number): Promise<Visibility> {
  const deadline = Date.now() + timeoutMs;
  const want = [...new Set(acked)].sort((a, b) => a - b);
  const served = new Set<number>(); // served whole by every process: not asked again
  const searched = new Set<string>(); // processes whose search found exactly `want`
  for (;;) {
    const problems: string[] = [];
    const lost = new Set<number>();
    for (const id of want.filter((i) => !served.has(i))) {
      const missing = await servingProblems(bases, id);
      if (missing.length === 0) served.add(id);
      else (problems.push(...missing), lost.add(id));
    }
    for (const base of bases.filter((b) => !searched.has(b))) {
      const found = await searchIds(base, runTag);
      const missing = want.filter((id) => !found?.includes(id));
      for (const id of missing) lost.add(id);
      if (found && missing.length === 0 && found.length === want.length) searched.add(base);
      else problems.push(`${base}: a search for ${runTag} found ${found?.length ?? 'nothing (error)'} of ${want.length}, missing ${missing.join(',') || 'none'}`);
    }
    if (problems.length === 0 || Date.now() > deadline) return { lost: [...lost], problems };
    await sleep(1_000);
  }
}

/** What keeps image `id` from being served whole by every process (empty when nothing does). */
async function servingProblems(bases: string[], id: number): Promise<string[]> {
  const problems: string[] = [];
  const digests = new Set<string>();
  for (const base of bases) {
    const got = await getJson<{ image: ImageJson }>(`${base}/api/v1/json/images/${id}`);
    const image = got.body?.image;
    if (!image?.thumbnails_generated) {
      problems.push(`${base}: image ${id} answered ${got.status}${image ? ' with no thumbnails yet' : ''}`);
      continue;
    }
    for (const url of [image.view_url, image.representations.thumb!]) {
      const path = new URL(url).pathname;
      const file = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(15_000) }).catch(() => undefined);
      const bytes = file?.ok ? Buffer.from(await file.arrayBuffer()) : undefined;
      if (bytes?.length) digests.add(`${path} ${createHash('sha256').update(bytes).digest('hex')}`);
      else problems.push(`${base}${path}: ${file?.status ?? 'no answer'}`);
    }
  }
  if (digests.size > 2) problems.push(`image ${id}: different bytes from different processes`);
  return problems;
}
