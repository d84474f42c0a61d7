/**
 * The embedded engine on a thread of its own, as `npm start` runs it. The API's own work on a
 * request (parsing, compiling the query, rendering the page, writing it out) takes longer than
 * the search does, and on one thread every request waits for all of it; with the engine beside
 * it, searches run on the second core while the API thread renders other pages. (A reindex gains
 * little: on two cores it is bound by the CPU it shares with PostgreSQL, and its documents are
 * copied to the thread.)
 *
 * Calls go to the thread in messages (their arguments cloned; a search's request as JSON text) and
 * come back in replies; the thread takes calls in the order they were made, so a write is seen by
 * every search made after it. Errors come back with their name and message.
 *
 * Every call made in one turn of the event loop goes in one message, and the thread answers a
 * message's calls in one reply: under load the requests read in one turn each post a search,
 * and a message costs the poster far more than its size (it wakes the other thread), so a batch
 * costs about what one call did.
 */
import { Worker } from 'node:worker_threads';
import type { CacheSnapshot, CacheSource } from '../../../lib/cache-registry.js';
import type { DatabaseMark, HashSearchRequest, HashSearchResult, IndexDocument, IndexSpec, PersistedState, SearchEngine, SearchRequest, SearchResult } from '../../engine.js';
import type { EmbeddedEngine, EmbeddedEngineOptions } from '../engine.js';

type Method = 'ensureIndex' | 'write' | 'remove' | 'search' | 'searchHashes' | 'get' | 'count' | 'createVersion' | 'switchAlias' | 'flush' | 'persisted' | 'markDatabase' | 'close';

/** A call of an engine method, or of the host's own (`cacheReport`), as posted to the thread. */
export interface EngineCall {
  id: number;
  method: (Method & keyof EmbeddedEngine) | 'cacheReport';
  args: unknown[];
}

export type EngineReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: { name: string; message: string } };

/** What goes to the thread: the calls of one turn, in the order they were made. */
export type EngineCalls = EngineCall[];

/** What comes back: the replies to one message's calls, in the order they were answered. */
export type EngineReplies = EngineReply[];

/** The JSON text of frozen requests, by object. */
const textsOfRequests = new WeakMap<SearchRequest, string>();

function requestText(request: SearchRequest): string {
  if (!Object.isFrozen(request)) return JSON.stringify(request);
  let text = textsOfRequests.get(request);
  if (text === undefined) {
    text = JSON.stringify(request);
    textsOfRequests.set(request, text);
  }
  return text;
}

const BOOT = new URL('./engine-thread-boot.mjs', import.meta.url);
/** The thread's host beside this module: TypeScript when running from source, JavaScript when built. */
const HOST = new URL(`./engine-thread-host${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

export class EngineThread implements SearchEngine {
  readonly kind = 'embedded' as const;
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  private nextId = 0;
  /** Calls made in this turn of the event loop, posted together when it ends. */
  private outbox: EngineCalls = [];
  /** Set once the thread has stopped: every call from then on fails with it. */
  private stopped: Error | null = null;
  /** The report of the thread's caches under way, if one is. */
  private reporting: Promise<readonly CacheSnapshot[]> | null = null;
  /**
   * The thread's caches (`EmbeddedEngine.caches`, and the requests it parsed), asked of it when
   * read: one call answers every read made while it is under way, so the five cache series of a
   * scrape cost one round trip.
   */
  readonly caches: CacheSource = {
    report: () => {
      this.reporting ??= this.call<CacheSnapshot[]>('cacheReport').finally(() => {
        this.reporting = null;
      });
      return this.reporting;
    },
  };

  constructor(options: EmbeddedEngineOptions = {}) {
    this.worker = new Worker(BOOT, { workerData: { host: HOST.href, options } });
    this.worker.on('message', (replies: EngineReplies) => {
      for (const reply of replies) this.settle(reply);
    });
    this.worker.on('error', (err) => this.stop(new Error(`search engine thread failed: ${err.message}`)));
    this.worker.on('exit', (code) => this.stop(new Error(`search engine thread exited (code ${code})`)));
  }

  private settle(reply: EngineReply): void {
    const call = this.pending.get(reply.id);
    if (call === undefined) return;
    this.pending.delete(reply.id);
    if (reply.ok) call.resolve(reply.value);
    else call.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name }));
  }

  private stop(reason: Error): void {
    this.stopped ??= reason;
    for (const call of this.pending.values()) call.reject(reason);
    this.pending.clear();
  }

  private call<T>(method: EngineCall['method'], ...args: unknown[]): Promise<T> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      if (this.outbox.length === 0) setImmediate(this.post);
      this.outbox.push({ id, method, args });
    });
  }

  /** Post the calls of the turn that ended; a call whose arguments cannot be cloned fails alone. */
  private readonly post = (): void => {
    const calls = this.outbox;
    this.outbox = [];
    if (this.stopped) return;
    try {
      this.worker.postMessage(calls);
    } catch {
      for (const call of calls) {
        try {
          this.worker.postMessage([call]);
        } catch (err) {
          this.pending.get(call.id)?.reject(err instanceof Error ? err : new Error(String(err)));
          this.pending.delete(call.id);
        }
      }
    }
  };

  ensureIndex(spec: IndexSpec): Promise<void> {
    return this.call('ensureIndex', spec);
  }

  write(index: string, docs: IndexDocument[]): Promise<void> {
    return this.call('write', index, docs);
  }

  remove(index: string, ids: number[]): Promise<void> {
    return this.call('remove', index, ids);
  }

  /**
   * The request goes as JSON text: it is JSON by nature (the OpenSearch engine sends the same
   * text), and writing and parsing it costs half of cloning its object tree (about 20 against
   * 40 µs for a listing's request). A frozen request (one a route keeps and asks again) is
   * written once.
   */
  search(index: string, request: SearchRequest): Promise<SearchResult> {
    return this.call('search', index, requestText(request));
  }

  searchHashes(index: string, request: HashSearchRequest): Promise<HashSearchResult> {
    return this.call('searchHashes', index, request);
  }

  get(index: string, ids: number[]): Promise<Map<number, IndexDocument>> {
    return this.call('get', index, ids);
  }

  count(index: string): Promise<number> {
    return this.call('count', index);
  }

  createVersion(spec: IndexSpec): Promise<string> {
    return this.call('createVersion', spec);
  }

  switchAlias(name: string, version: string): Promise<void> {
    return this.call('switchAlias', name, version);
  }

  flush(position?: number): Promise<void> {
    return this.call('flush', position);
  }

  persisted(): Promise<PersistedState> {
    return this.call('persisted');
  }

  markDatabase(mark: DatabaseMark, restart?: boolean): Promise<void> {
    return this.call('markDatabase', mark, restart);
  }

  /** Write the snapshot, then end the thread. */
  async close(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.call('close');
    } finally {
      this.stop(new Error('search engine closed'));
      await this.worker.terminate();
    }
  }
}
