/**
 * The `SearchEngine` over an OpenSearch cluster (2.x or 3.x, also Elasticsearch 7.10-compatible
 * REST): versioned physical indices `<prefix><name>_v<n>` behind aliases `<prefix><name>`
 * (reference philomena.md §2.1), `_bulk` writes with 429 retries, exact totals, deep paging.
 *
 * Names. Every `index` argument is the unprefixed name the rest of the service uses: an alias
 * (`images`) or a version returned by `createVersion` (`images_v3`). The prefix is added here, so
 * callers never see it.
 *
 * Visibility of writes. Indices are created with an explicit `refresh_interval` (1 s by default),
 * so a write through the alias is searchable within about a second. Because the interval is set
 * explicitly, OpenSearch does not skip refreshes of search-idle shards (which it does when the
 * interval is left at its default), so the bound also holds after a quiet period. With
 * `waitForRefresh: true`, writes through an alias are sent with `refresh=wait_for` and resolve
 * only once searchable (tests, tools). Writes to a version being bulk-loaded never wait: its
 * refresh is off until `switchAlias`. `flush()` refreshes every index this engine wrote to.
 *
 * Several nodes. Given the URLs of several nodes of a cluster, the client sends each request to
 * the next live one in turn; a node that refuses the connection, drops it or answers 502/503/504
 * is set aside and the request is sent again to another (up to `maxRetries` times, at least once
 * per node), and a node set aside is tried again after a minute (then two, four… while it stays
 * down: the client pings it before it takes requests again). Only when every node failed does a
 * call fail, with an `OpenSearchError` marked `unavailable`, which the API answers 503.
 *
 * Replicas. Live indices get `numberOfReplicas` (a count, or an `auto_expand_replicas` range);
 * a version being bulk-loaded has none until `switchAlias` gives it the same, so every reindex
 * keeps the setting. The switch waits (up to `replicaWaitMs`) for the replicas to be copied
 * before the alias moves, so that losing a node right after a reindex loses no shard.
 * `ensureIndex` gives the setting to a live index that has others (set by hand, or by an earlier
 * setting), so a changed setting takes effect at the next start without a reindex.
 *
 * Deep pages. Indices created here have `max_result_window` = 10,000,000, so `from + size`
 * paging (what Philomena does) answers every page up to there in one request. Beyond the window
 * of the index (read from its settings, and only when `from + size` exceeds OpenSearch's default
 * of 10,000 or the configured window if smaller), the page is reached with `search_after`: one request jumps to the last hit inside
 * the window, further requests walk `deepPagingStep` hits at a time, the last one returns the
 * page. This needs a total order, so the sort must end with the `id` tie-breaker (the request
 * builders always add it); without it the engine refuses with an error rather than return pages
 * that skip or repeat hits. The walk is not a point-in-time view: writes landing during it can
 * shift the page by the number of documents they add or remove before it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, type API, type Types } from '@opensearch-project/opensearch';
import { tagsAnalysis } from '../indexes/tags/mapping.js';
import type { DatabaseMark, HashSearchResult, HashSearchRequest, IndexDocument, IndexSpec, PersistedState, SearchEngine, SearchRequest, SearchResult } from '../engine.js';
import { type BulkOp, type BulkParams, BulkSender, deleteOps, indexOps } from './bulk.js';
import { asRecord, type Call, describeCause, OpenSearchError, toOpenSearchError } from './errors.js';
import {
  checkPageParam,
  DEFAULT_RESULT_WINDOW,
  type Hit,
  idsOf,
  type SearchBody,
  searchPastWindow,
  windowOfSettings,
} from './paging.js';
import { markMeta, putMark, readMark } from './database-mark.js';
import { hashSearchBody } from './hash-search.js';
import { type IndexSettingsOptions, indexSettings, replicaSettings } from './settings.js';

export interface OpenSearchEngineOptions {
  /** URL of a node, e.g. `http://localhost:9200`, or of several nodes of one cluster (also used in error messages). */
  node: string | string[];
  /** Prepended to every index and alias name (`test_` → `test_images`, `test_images_v1`). */
  indexPrefix?: string;
  /** A ready client (custom auth, transport); it stays the caller's and `close()` leaves it open. */
  client?: Client;
  /** Primary shards of new indices (default 1: one node). */
  numberOfShards?: number;
  /**
   * Replicas of live indices (default 0: one node): a count, or an `auto_expand_replicas` range
   * such as `0-1`; loading versions always have 0 until their switch.
   */
  numberOfReplicas?: number | string;
  /** How long `switchAlias` waits for the new version's replicas before it moves the alias anyway (default 30 s). */
  replicaWaitMs?: number;
  /** Times a request is sent again to another node after a connection failure (default 3, at least one per other node). */
  maxRetries?: number;
  /** `index.max_result_window` of new indices (default 10,000,000 as the reference). */
  maxResultWindow?: number;
  /** `index.max_terms_count` of new indices (default 262,144: long `terms` lists of hidden tags). */
  maxTermsCount?: number;
  /** `index.refresh_interval` of live indices (default `1s`). */
  refreshInterval?: string;
  /** Send writes through an alias with `refresh=wait_for` (default false: rely on the interval). */
  waitForRefresh?: boolean;
  /** Documents per `_bulk` request (default 1,000). */
  bulkMaxDocs?: number;
  /**
   * Merge a freshly loaded version down to one segment before its switch (default true). A bulk
   * load leaves a few dozen segments, and every search visits each of them; merged, a search
   * walks one postings list and one doc-values column per field, and the replicas copy one file set.
   */
  mergeLoadedVersions?: boolean;
  /**
   * Let the shard request cache answer repeated searches (default true). Off, every search is
   * run against the index: what the benchmark measures as the engine's own cost.
   */
  requestCache?: boolean;
  /** `_bulk` requests of one write in flight at once when its ids are distinct (default 2). */
  bulkConcurrency?: number;
  /** Bytes of NDJSON per `_bulk` request (default 5 MiB; a larger document goes alone). */
  bulkMaxBytes?: number;
  /** Retries of items (or whole requests) rejected with 429; exponential backoff between them. */
  retry?: { attempts?: number; initialDelayMs?: number; maxDelayMs?: number };
  /** Hits fetched per request while walking past the result window (default 10,000). */
  deepPagingStep?: number;
  /** Wait between the alias switch and deleting the old version, for searches still on it. */
  retireDelayMs?: number;
  /** Custom analyzers by name, added to the settings of indices whose mapping uses them. */
  analyzers?: Record<string, Record<string, unknown>>;
  /** Per-request timeout of a client built here (default 30 s). */
  requestTimeoutMs?: number;
}


const MGET_CHUNK = 1_000;

function isVersionName(index: string): boolean {
  return /_v\d+$/.test(index);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class OpenSearchEngine implements SearchEngine {
  readonly kind = 'opensearch' as const;
  readonly loadsNewestFirst = true;
  readonly client: Client;
  private readonly node: string;
  private readonly prefix: string;
  private readonly ownsClient: boolean;
  private readonly indexOptions: IndexSettingsOptions;
  private readonly waitForRefresh: boolean;
  private readonly bulkSender: BulkSender;
  private readonly deepPagingStep: number;
  private readonly retireDelayMs: number;
  private readonly replicaWaitMs: number;
  private readonly mergeLoaded: boolean;
  private readonly requestCache: boolean;
  /** `max_result_window` per index argument, read when a page goes past 10,000 (or ours). */
  private readonly windows = new Map<string, number>();
  /** Physical names written to since the last `flush()`. */
  private readonly touched = new Set<string>();
  /** The aliases (physical names) this engine ensured: the ones its database mark goes on. */
  private readonly ensured = new Set<string>();
  /** The database the indices reflect, given to new versions (see `database-mark.ts`). */
  private mark: DatabaseMark | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: OpenSearchEngineOptions) {
    const nodes = typeof options.node === 'string' ? [options.node] : options.node;
    if (nodes.length === 0) throw new Error('OpenSearchEngine needs the URL of at least one node');
    this.node = nodes.join(',');
    this.prefix = options.indexPrefix ?? '';
    this.ownsClient = options.client === undefined;
    this.client =
      options.client ??
      new Client({
        nodes,
        requestTimeout: options.requestTimeoutMs ?? 30_000,
        maxRetries: options.maxRetries ?? Math.max(3, nodes.length - 1),
      });
    this.indexOptions = {
      shards: options.numberOfShards ?? 1,
      replicas: options.numberOfReplicas ?? 0,
      maxResultWindow: options.maxResultWindow ?? 10_000_000,
      maxTermsCount: options.maxTermsCount ?? 262_144,
      refreshInterval: options.refreshInterval ?? '1s',
      analyzers: { ...(tagsAnalysis.analyzer as Record<string, Record<string, unknown>>), ...options.analyzers },
    };
    this.waitForRefresh = options.waitForRefresh ?? false;
    this.bulkSender = new BulkSender(this.client, this.call, {
      maxDocs: Math.max(1, options.bulkMaxDocs ?? 1_000),
      maxBytes: Math.max(1, options.bulkMaxBytes ?? 5 * 1024 * 1024),
      attempts: Math.max(1, options.retry?.attempts ?? 6),
      initialDelayMs: options.retry?.initialDelayMs ?? 100,
      maxDelayMs: options.retry?.maxDelayMs ?? 5_000,
      concurrency: Math.max(1, options.bulkConcurrency ?? 2),
    });
    this.deepPagingStep = Math.max(1, options.deepPagingStep ?? 10_000);
    this.retireDelayMs = options.retireDelayMs ?? 1_000;
    this.mergeLoaded = options.mergeLoadedVersions ?? true;
    this.requestCache = options.requestCache ?? true;
    this.replicaWaitMs = Math.max(0, options.replicaWaitMs ?? 30_000);
  }

  /** The physical (prefixed) name of an alias or version. */
  physicalName(index: string): string {
    return this.prefix + index;
  }

  private readonly call: Call = async (what, fn) => {
    try {
      return await fn();
    } catch (err) {
      throw toOpenSearchError(err, what, this.node);
    }
  };

  // ---- indices and aliases -----------------------------------------------------------------

  private async createIndex(
    physical: string,
    spec: IndexSpec,
    loading: boolean,
    alias?: string,
  ): Promise<void> {
    const mapping = this.mark ? { ...spec.mapping, _meta: markMeta(this.mark) } : spec.mapping;
    const body: API.Indices_Create_RequestBody = {
      settings: indexSettings(spec.mapping, loading, this.indexOptions),
      mappings: mapping as Types.Common_Mapping.TypeMapping,
    };
    if (alias !== undefined) body.aliases = { [alias]: {} };
    await this.call(`create index [${physical}]`, () => this.client.indices.create({ index: physical, body }));
  }

  private async aliasExists(alias: string): Promise<boolean> {
    const res = await this.call(`alias lookup [${alias}]`, () => this.client.indices.existsAlias({ name: alias }));
    return res.body === true;
  }

  /** The physical indices an alias points at (none when it does not exist). */
  private async aliasTargets(alias: string): Promise<string[]> {
    const res = await this.call(`alias lookup [${alias}]`, () =>
      this.client.indices.getAlias({ name: alias }, { ignore: [404] }),
    );
    if (res.statusCode === 404) return [];
    return Object.keys(res.body ?? {}).sort();
  }

  /** Version numbers of `<alias>_v<n>` indices that exist, open or closed. */
  private async versions(alias: string): Promise<number[]> {
    const res = await this.call(`list versions of [${alias}]`, () =>
      this.client.cat.indices({ index: `${alias}_v*`, format: 'json', h: ['index'], expand_wildcards: 'all' }),
    );
    const re = new RegExp(`^${escapeRegExp(alias)}_v(\\d+)$`);
    const out: number[] = [];
    for (const row of Array.isArray(res.body) ? res.body : []) {
      const m = re.exec(String(row.index ?? ''));
      if (m) out.push(Number(m[1]));
    }
    return out.sort((a, b) => a - b);
  }

  async ensureIndex(spec: IndexSpec): Promise<void> {
    const alias = this.physicalName(spec.name);
    this.windows.clear();
    this.ensured.add(alias);
    if (await this.aliasExists(alias)) {
      await this.keepReplicas(alias);
      return;
    }
    const first = `${alias}_v1`;
    try {
      // created with its alias in one request, so a concurrent starter sees both or neither
      await this.createIndex(first, spec, false, alias);
    } catch (err) {
      if (!(err instanceof OpenSearchError) || err.type !== 'resource_already_exists_exception') throw err;
      // another process created it first, or an earlier start stopped before the alias existed
      if (await this.aliasExists(alias)) return;
      await this.call(`add alias [${alias}]`, () =>
        this.client.indices.updateAliases({ body: { actions: [{ add: { index: first, alias } }] } }),
      );
    }
  }

  /**
   * Force-merge `target` to one segment. It runs while the old version still serves, and can take
   * a minute or two on a million documents, so it gets a timeout of its own.
   */
  private async mergeSegments(target: string): Promise<void> {
    await this.call(`merge segments of [${target}]`, () =>
      this.client.indices.forcemerge({ index: target, max_num_segments: 1 }, { requestTimeout: 30 * 60_000 }),
    );
  }

  /** Gives the indices behind `alias` the configured replicas where they have others. */
  private async keepReplicas(alias: string): Promise<void> {
    const replicas = this.indexOptions.replicas;
    const res = await this.call(`read the replicas of [${alias}]`, () =>
      this.client.indices.getSettings({
        index: alias,
        name: ['index.number_of_replicas', 'index.auto_expand_replicas'],
        flat_settings: true,
      }),
    );
    const others = Object.entries(asRecord(res.body) ?? {})
      .filter(([, entry]) => {
        const settings = asRecord(asRecord(entry)?.settings) ?? {};
        const autoExpand = String(settings['index.auto_expand_replicas'] ?? 'false');
        if (typeof replicas === 'string') return autoExpand !== replicas;
        return autoExpand !== 'false' || String(settings['index.number_of_replicas']) !== String(replicas);
      })
      .map(([index]) => index);
    if (others.length === 0) return;
    const index = typeof replicas === 'string' ? replicaSettings(replicas) : { auto_expand_replicas: 'false', number_of_replicas: replicas };
    await this.call(`set the replicas of [${others.join(',')}]`, () =>
      this.client.indices.putSettings({ index: others, body: { index } }),
    );
  }

  async createVersion(spec: IndexSpec): Promise<string> {
    const alias = this.physicalName(spec.name);
    for (let attempt = 0; ; attempt++) {
      const existing = await this.versions(alias);
      const next = (existing.at(-1) ?? 0) + 1;
      const version = `${spec.name}_v${next}`;
      try {
        await this.createIndex(this.physicalName(version), spec, true);
        return version;
      } catch (err) {
        // a concurrent reindex took the number; take the next one
        const taken = err instanceof OpenSearchError && err.type === 'resource_already_exists_exception';
        if (!taken || attempt >= 4) throw err;
      }
    }
  }

  async switchAlias(name: string, version: string): Promise<void> {
    const alias = this.physicalName(name);
    const target = this.physicalName(version);
    if (this.mergeLoaded) await this.mergeSegments(target);
    await this.call(`restore settings of [${target}]`, () =>
      this.client.indices.putSettings({
        index: target,
        body: { index: { refresh_interval: this.indexOptions.refreshInterval, ...replicaSettings(this.indexOptions.replicas) } },
      }),
    );
    await this.waitForReplicas(target);
    await this.call(`refresh [${target}]`, () => this.client.indices.refresh({ index: target }));
    const old = (await this.aliasTargets(alias)).filter((i) => i !== target);
    const actions: Types.Indices_UpdateAliases.Action[] = [
      ...old.map((index) => ({ remove: { index, alias } })),
      { add: { index: target, alias } },
    ];
    await this.call(`switch alias [${alias}] to [${target}]`, () =>
      this.client.indices.updateAliases({ body: { actions } }),
    );
    this.windows.clear();
    // Versions numbered below the new one that no alias points at are builds that failed before
    // their switch (a node restarted mid-reindex, say): nothing reads them, so they go too.
    const number = Number(/_v(\d+)$/.exec(version)?.[1]);
    const abandoned = (await this.versions(alias))
      .filter((n) => n < number)
      .map((n) => `${alias}_v${n}`)
      .filter((i) => !old.includes(i));
    const retired = [...old, ...abandoned];
    if (retired.length === 0) return;
    // searches that resolved the alias just before the switch finish on the old version
    if (old.length > 0 && this.retireDelayMs > 0) await sleep(this.retireDelayMs);
    await this.call(`delete old versions [${retired.join(',')}]`, () =>
      this.client.indices.delete({ index: retired, ignore_unavailable: true }),
    );
    for (const o of retired) this.touched.delete(o);
  }

  /**
   * Waits, up to `replicaWaitMs`, until every copy of `physical`'s shards is allocated (green).
   * A cluster that cannot place them all (fewer nodes than copies) still gets the alias after
   * the wait: a yellow index serves as well, it is only less safe.
   */
  private async waitForReplicas(physical: string): Promise<void> {
    if (this.replicaWaitMs === 0) return;
    const seconds = Math.ceil(this.replicaWaitMs / 1000);
    await this.call(`wait for the replicas of [${physical}]`, () =>
      this.client.cluster.health(
        { index: physical, wait_for_status: 'green', timeout: `${seconds}s` },
        { ignore: [408], requestTimeout: this.replicaWaitMs + 10_000 },
      ),
    );
  }

  // ---- writes ------------------------------------------------------------------------------

  async write(index: string, docs: IndexDocument[]): Promise<void> {
    await this.bulk('write', index, indexOps(docs), false);
  }

  async remove(index: string, ids: number[]): Promise<void> {
    await this.bulk('remove', index, deleteOps(ids), true);
  }

  private async bulk(verb: 'write' | 'remove', index: string, ops: BulkOp[], deletes: boolean): Promise<void> {
    if (ops.length === 0) return;
    const target = this.physicalName(index);
    const loading = isVersionName(index);
    const params: BulkParams = {
      index: target,
      // never let a write to a missing alias auto-create an index under the alias's name
      require_alias: !loading,
    };
    if (this.waitForRefresh && !loading) params.refresh = 'wait_for';
    this.touched.add(target);
    await this.bulkSender.send(verb, target, ops, params, deletes);
  }

  // ---- reads -------------------------------------------------------------------------------

  /**
   * One `_search`. `cache`: the shard request cache may answer it. OpenSearch caches only
   * `size: 0` requests unless asked; a board asks the same listings and tag pages again and again,
   * and a cached answer is dropped by the shard itself at the next refresh that changed it, so it
   * is never stale. One-off requests (a random order with a drawn seed) would only fill it.
   */
  private async rawSearch(index: string, body: SearchBody, cache = false): Promise<{ hits: Hit[]; total: number }> {
    const target = this.physicalName(index);
    const send = () =>
      this.call(`search [${target}]`, () =>
        // a shard failure is an error, never a silently partial page and total
        this.client.search({ index: target, body, allow_partial_search_results: false, ...(cache ? { request_cache: true } : {}) }),
      );
    const res = await send().catch(async (err: unknown) => {
      // a node lost between the query and fetch phases (errors.ts): asked again, the cluster
      // answers from the copies that remain
      if (!(err instanceof OpenSearchError && err.unavailable && err.type === 'search_phase_execution_exception')) throw err;
      await sleep(250);
      return send();
    });
    const hits = (res.body.hits?.hits ?? []) as Hit[];
    const raw = res.body.hits?.total as unknown;
    const total = typeof raw === 'number' ? raw : Number(asRecord(raw)?.value ?? 0);
    return { hits, total };
  }

  /** `max_result_window` of the index behind `index` (the smallest, if the alias has several). */
  private async resultWindow(index: string): Promise<number> {
    const cached = this.windows.get(index);
    if (cached !== undefined) return cached;
    const target = this.physicalName(index);
    const key = 'index.max_result_window';
    const res = await this.call(`read settings of [${target}]`, () =>
      this.client.indices.getSettings({ index: target, name: key, include_defaults: true, flat_settings: true }),
    );
    const window = windowOfSettings(res.body, key);
    this.windows.set(index, window);
    return window;
  }

  async search(index: string, request: SearchRequest): Promise<SearchResult> {
    const from = checkPageParam(request.from, 'from', 0);
    const size = checkPageParam(request.size, 'size', 10);
    const base: SearchBody = { query: request.query };
    if (request.sort !== undefined) base.sort = request.sort;
    // an index's window is at least the smaller of OpenSearch's default and ours: below that,
    // no need to read its settings
    const safe = Math.min(DEFAULT_RESULT_WINDOW, this.indexOptions.maxResultWindow);
    const window = from + size > safe ? await this.resultWindow(index) : safe;
    if (from + size <= window) {
      const { hits, total } = await this.rawSearch(
        index,
        { ...base, from, size, _source: false, track_total_hits: true },
        this.requestCache && request.oneOff !== true,
      );
      return { ids: idsOf(hits), total };
    }
    return searchPastWindow((body) => this.rawSearch(index, body), {
      physical: this.physicalName(index),
      base,
      sort: request.sort,
      from,
      size,
      window,
      deepPagingStep: this.deepPagingStep,
    });
  }

  async searchHashes(index: string, request: HashSearchRequest): Promise<HashSearchResult> {
    const { hits, total } = await this.rawSearch(index, hashSearchBody(request));
    return { hits: hits.map((h) => ({ id: Number(h._id), distance: Number((h.sort as unknown[] | undefined)?.[0]) })), total };
  }

  async get(index: string, ids: number[]): Promise<Map<number, IndexDocument>> {
    const target = this.physicalName(index);
    const out = new Map<number, IndexDocument>();
    for (let i = 0; i < ids.length; i += MGET_CHUNK) {
      const chunk = ids.slice(i, i + MGET_CHUNK).map(String);
      const res = await this.call(`get documents from [${target}]`, () =>
        this.client.mget({ index: target, _source: true, body: { ids: chunk } }),
      );
      for (const doc of res.body.docs ?? []) {
        const d = asRecord(doc) ?? {};
        if (d.error !== undefined) {
          const { type, reason } = describeCause(d.error);
          throw new OpenSearchError(
            `OpenSearch get documents from [${target}] failed for id ${String(d._id)}: ${type ?? 'error'}: ${reason ?? ''}`,
            undefined,
            type,
            reason,
          );
        }
        if (d.found !== true || d._source === undefined) continue;
        out.set(Number(d._id), d._source as IndexDocument);
      }
    }
    return out;
  }

  async count(index: string): Promise<number> {
    const target = this.physicalName(index);
    const res = await this.call(`count [${target}]`, () => this.client.count({ index: target }));
    return res.body.count;
  }

  /** What the indices record of the database they reflect; OpenSearch keeps no outbox position. */
  async persisted(): Promise<PersistedState> {
    const mark = await readMark(this.client, this.call, [...this.ensured].sort());
    return { positions: {}, discarded: [], ...(mark ? { mark } : {}) };
  }

  /** Put `mark` on the indices behind the ensured aliases, and on every version created from now on. */
  async markDatabase(mark: DatabaseMark): Promise<void> {
    this.mark = mark;
    await putMark(this.client, this.call, [...this.ensured].sort(), mark);
  }

  /** Refreshes the indices written to since the last flush, making those writes searchable now. */
  async flush(): Promise<void> {
    if (this.touched.size === 0) return;
    const indices = [...this.touched].sort();
    await this.call(`refresh [${indices.join(',')}]`, () =>
      this.client.indices.refresh({ index: indices, ignore_unavailable: true }),
    );
    for (const i of indices) this.touched.delete(i);
  }

  /** Closes the client built by the constructor (once); a client passed in is left to its owner. */
  async close(): Promise<void> {
    if (!this.ownsClient) return;
    this.closing ??= this.client.close();
    await this.closing;
  }
}
