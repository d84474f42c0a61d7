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
import { Client, errors, type API, type Types } from '@opensearch-project/opensearch';
import { tagsAnalysis } from '../indexes/tags/mapping.js';
import type { IndexDocument, IndexSpec, SearchEngine, SearchRequest, SearchResult } from '../engine.js';
import type { IndexMapping } from '../mapping.js';

export interface OpenSearchEngineOptions {
  /** Base URL of the cluster, e.g. `http://localhost:9200` (also used in error messages). */
  node: string;
  /** Prepended to every index and alias name (`test_` → `test_images`, `test_images_v1`). */
  indexPrefix?: string;
  /** A ready client (custom auth, transport); it stays the caller's and `close()` leaves it open. */
  client?: Client;
  /** Primary shards of new indices (default 1: one node). */
  numberOfShards?: number;
  /** Replicas of live indices (default 0: one node); loading versions always have 0. */
  numberOfReplicas?: number;
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

/** A failed OpenSearch call: the operation, HTTP status, and the error's type and reason. */
export class OpenSearchError extends Error {
  override readonly name = 'OpenSearchError';
  constructor(
    message: string,
    readonly status?: number,
    readonly type?: string,
    readonly reason?: string,
  ) {
    super(message);
  }
}

export interface BulkItemFailure {
  id: string;
  status: number;
  type: string;
  reason: string;
}

/** Some documents of a `write`/`remove` failed for good (the others were applied). */
export class BulkWriteError extends OpenSearchError {
  constructor(
    message: string,
    readonly failures: BulkItemFailure[],
  ) {
    super(message);
  }
}

/** OpenSearch's default `index.max_result_window`: below it no settings lookup is needed. */
const DEFAULT_RESULT_WINDOW = 10_000;
const MGET_CHUNK = 1_000;
const FAILURES_IN_MESSAGE = 10;
const REASON_MAX = 300;

interface BulkOp {
  id: string;
  ndjson: string;
  bytes: number;
}

interface Hit {
  _id?: string;
  sort?: Types.Common.SortResults;
}

type SearchBody = API.Search_RequestBody;

function isVersionName(index: string): boolean {
  return /_v\d+$/.test(index);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function clip(s: string): string {
  return s.length > REASON_MAX ? `${s.slice(0, REASON_MAX)}…` : s;
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** `type` and `reason` of an OpenSearch error object, with the root cause when it says more. */
function describeCause(error: unknown): { type?: string; reason?: string } {
  if (typeof error === 'string') return { reason: clip(error) };
  const e = asRecord(error);
  if (!e) return {};
  const type = str(e.type);
  let reason = str(e.reason);
  const roots = Array.isArray(e.root_cause) ? e.root_cause : [];
  const cause = asRecord(roots[0]) ?? asRecord(e.caused_by);
  if (cause) {
    const ct = str(cause.type);
    const cr = str(cause.reason);
    if ((ct !== undefined && ct !== type) || (cr !== undefined && cr !== reason)) {
      const inner = [ct, cr].filter((x) => x !== undefined).join(': ');
      reason = reason === undefined ? inner : `${reason} (caused by ${inner})`;
    }
  }
  return { type, reason: reason === undefined ? undefined : clip(reason) };
}

function sortField(clause: unknown): string | undefined {
  if (typeof clause === 'string') return clause;
  const o = asRecord(clause);
  if (!o) return undefined;
  const keys = Object.keys(o);
  return keys.length === 1 ? keys[0] : undefined;
}

function checkPageParam(v: number | undefined, name: string, fallback: number): number {
  if (v === undefined) return fallback;
  if (!Number.isSafeInteger(v) || v < 0) throw new Error(`[${name}] must be a non-negative integer, got ${String(v)}`);
  return v;
}

function docId(doc: IndexDocument): string {
  const id: unknown = doc.id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) {
    throw new Error(`index document without an integer id: ${clip(JSON.stringify(doc))}`);
  }
  return String(id);
}

/** Names of the analyzers a mapping refers to (`analyzer`, `search_analyzer`), sub-fields included. */
function analyzersUsed(properties: Record<string, unknown>, into = new Set<string>()): Set<string> {
  for (const field of Object.values(properties)) {
    const f = asRecord(field);
    if (!f) continue;
    for (const key of ['analyzer', 'search_analyzer', 'search_quote_analyzer']) {
      const name = str(f[key]);
      if (name !== undefined) into.add(name);
    }
    const nested = asRecord(f.properties);
    if (nested) analyzersUsed(nested, into);
    const fields = asRecord(f.fields);
    if (fields) analyzersUsed(fields, into);
  }
  return into;
}

export class OpenSearchEngine implements SearchEngine {
  readonly kind = 'opensearch' as const;
  readonly client: Client;
  private readonly node: string;
  private readonly prefix: string;
  private readonly ownsClient: boolean;
  private readonly shards: number;
  private readonly replicas: number;
  private readonly maxResultWindow: number;
  private readonly maxTermsCount: number;
  private readonly refreshInterval: string;
  private readonly waitForRefresh: boolean;
  private readonly bulkMaxDocs: number;
  private readonly bulkMaxBytes: number;
  private readonly retryAttempts: number;
  private readonly retryInitialMs: number;
  private readonly retryMaxMs: number;
  private readonly deepPagingStep: number;
  private readonly retireDelayMs: number;
  private readonly analyzers: Record<string, Record<string, unknown>>;
  /** `max_result_window` per index argument, read when a page goes past 10,000 (or ours). */
  private readonly windows = new Map<string, number>();
  /** Physical names written to since the last `flush()`. */
  private readonly touched = new Set<string>();
  private closing: Promise<void> | undefined;

  constructor(options: OpenSearchEngineOptions) {
    this.node = options.node;
    this.prefix = options.indexPrefix ?? '';
    this.ownsClient = options.client === undefined;
    this.client =
      options.client ?? new Client({ node: options.node, requestTimeout: options.requestTimeoutMs ?? 30_000 });
    this.shards = options.numberOfShards ?? 1;
    this.replicas = options.numberOfReplicas ?? 0;
    this.maxResultWindow = options.maxResultWindow ?? 10_000_000;
    this.maxTermsCount = options.maxTermsCount ?? 262_144;
    this.refreshInterval = options.refreshInterval ?? '1s';
    this.waitForRefresh = options.waitForRefresh ?? false;
    this.bulkMaxDocs = Math.max(1, options.bulkMaxDocs ?? 1_000);
    this.bulkMaxBytes = Math.max(1, options.bulkMaxBytes ?? 5 * 1024 * 1024);
    this.retryAttempts = Math.max(1, options.retry?.attempts ?? 6);
    this.retryInitialMs = options.retry?.initialDelayMs ?? 100;
    this.retryMaxMs = options.retry?.maxDelayMs ?? 5_000;
    this.deepPagingStep = Math.max(1, options.deepPagingStep ?? 10_000);
    this.retireDelayMs = options.retireDelayMs ?? 1_000;
    this.analyzers = { ...(tagsAnalysis.analyzer as Record<string, Record<string, unknown>>), ...options.analyzers };
  }

  /** The physical (prefixed) name of an alias or version. */
  physicalName(index: string): string {
    return this.prefix + index;
  }

  // ---- errors ------------------------------------------------------------------------------

  private toError(err: unknown, what: string): Error {
    if (err instanceof OpenSearchError) return err;
    if (err instanceof errors.ResponseError) {
      const status = err.meta.statusCode ?? undefined;
      const body = err.meta.body as unknown;
      const { type, reason } =
        typeof body === 'string' ? { type: undefined, reason: clip(body) } : describeCause(asRecord(body)?.error);
      const detail = [type, reason].filter((x) => x !== undefined && x !== '').join(': ');
      return new OpenSearchError(
        `OpenSearch ${what} failed: HTTP ${status ?? '?'}${detail ? ` ${detail}` : ''}`,
        status ?? undefined,
        type,
        reason,
      );
    }
    if (err instanceof errors.TimeoutError) {
      return new OpenSearchError(`OpenSearch ${what} failed: no answer from ${this.node} in time (${err.message})`);
    }
    if (err instanceof errors.ConnectionError || err instanceof errors.NoLivingConnectionsError) {
      return new OpenSearchError(`OpenSearch ${what} failed: cannot connect to ${this.node} (${err.message})`);
    }
    if (err instanceof errors.DeserializationError) {
      return new OpenSearchError(`OpenSearch ${what} failed: unreadable response from ${this.node}`);
    }
    const message = err instanceof Error ? err.message : String(err);
    return new OpenSearchError(`OpenSearch ${what} failed: ${message}`);
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw this.toError(err, what);
    }
  }

  // ---- indices and aliases -----------------------------------------------------------------

  private settings(mapping: IndexMapping, loading: boolean): Types.Indices_Common.IndexSettings {
    const used = analyzersUsed(mapping.properties as Record<string, unknown>);
    const analyzer: Record<string, Record<string, unknown>> = {};
    for (const name of used) {
      const def = this.analyzers[name];
      if (def) analyzer[name] = def;
    }
    const index: Types.Indices_Common.IndexSettings = {
      number_of_shards: this.shards,
      number_of_replicas: loading ? 0 : this.replicas,
      refresh_interval: loading ? '-1' : this.refreshInterval,
      max_result_window: this.maxResultWindow,
      max_terms_count: this.maxTermsCount,
    };
    if (Object.keys(analyzer).length > 0) {
      index.analysis = { analyzer } as Types.Indices_Common.IndexSettingsAnalysis;
    }
    return { index };
  }

  private async createIndex(
    physical: string,
    spec: IndexSpec,
    loading: boolean,
    alias?: string,
  ): Promise<void> {
    const body: API.Indices_Create_RequestBody = {
      settings: this.settings(spec.mapping, loading),
      mappings: spec.mapping as Types.Common_Mapping.TypeMapping,
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
    if (await this.aliasExists(alias)) return;
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
    await this.call(`restore settings of [${target}]`, () =>
      this.client.indices.putSettings({
        index: target,
        body: { index: { refresh_interval: this.refreshInterval, number_of_replicas: this.replicas } },
      }),
    );
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

  // ---- writes ------------------------------------------------------------------------------

  async write(index: string, docs: IndexDocument[]): Promise<void> {
    const ops: BulkOp[] = docs.map((doc) => {
      const id = docId(doc);
      const ndjson = `${JSON.stringify({ index: { _id: id } })}\n${JSON.stringify(doc)}\n`;
      return { id, ndjson, bytes: Buffer.byteLength(ndjson) };
    });
    await this.bulk('write', index, ops, false);
  }

  async remove(index: string, ids: number[]): Promise<void> {
    const ops: BulkOp[] = ids.map((n) => {
      if (!Number.isSafeInteger(n)) throw new Error(`cannot remove document with id ${String(n)}`);
      const id = String(n);
      const ndjson = `${JSON.stringify({ delete: { _id: id } })}\n`;
      return { id, ndjson, bytes: Buffer.byteLength(ndjson) };
    });
    await this.bulk('remove', index, ops, true);
  }

  private chunks(ops: BulkOp[]): BulkOp[][] {
    const out: BulkOp[][] = [];
    let current: BulkOp[] = [];
    let bytes = 0;
    for (const op of ops) {
      if (current.length > 0 && (current.length >= this.bulkMaxDocs || bytes + op.bytes > this.bulkMaxBytes)) {
        out.push(current);
        current = [];
        bytes = 0;
      }
      current.push(op);
      bytes += op.bytes;
    }
    if (current.length > 0) out.push(current);
    return out;
  }

  private backoff(attempt: number): number {
    return Math.min(this.retryMaxMs, this.retryInitialMs * 2 ** (attempt - 1));
  }

  private async bulk(verb: 'write' | 'remove', index: string, ops: BulkOp[], deletes: boolean): Promise<void> {
    if (ops.length === 0) return;
    const target = this.physicalName(index);
    const loading = isVersionName(index);
    const params: Omit<API.Bulk_Request, 'body'> = {
      index: target,
      // never let a write to a missing alias auto-create an index under the alias's name
      require_alias: !loading,
    };
    if (this.waitForRefresh && !loading) params.refresh = 'wait_for';
    this.touched.add(target);

    const failures: BulkItemFailure[] = [];
    for (const chunk of this.chunks(ops)) {
      failures.push(...(await this.sendChunk(verb, target, chunk, params, deletes)));
    }
    if (failures.length > 0) {
      const listed = failures
        .slice(0, FAILURES_IN_MESSAGE)
        .map((f) => `id ${f.id}: ${f.status} ${f.type}: ${f.reason}`)
        .join('; ');
      const more = failures.length > FAILURES_IN_MESSAGE ? `; and ${failures.length - FAILURES_IN_MESSAGE} more` : '';
      throw new BulkWriteError(
        `OpenSearch bulk ${verb} to [${target}] failed for ${failures.length} of ${ops.length} documents: ${listed}${more}`,
        failures,
      );
    }
  }

  /** One chunk, retrying the items (or the whole request) rejected with 429; returns the rest. */
  private async sendChunk(
    verb: string,
    target: string,
    chunk: BulkOp[],
    params: Omit<API.Bulk_Request, 'body'>,
    deletes: boolean,
  ): Promise<BulkItemFailure[]> {
    const failures: BulkItemFailure[] = [];
    let pending = chunk;
    for (let attempt = 1; ; attempt++) {
      const ndjson = pending.map((op) => op.ndjson).join('');
      let body: Types.Core_Bulk.BulkResponse;
      try {
        const res = await this.call(`bulk ${verb} to [${target}]`, () =>
          // a string body is sent as is: the NDJSON is built (and measured) here
          this.client.bulk({ ...params, body: ndjson as unknown as API.Bulk_RequestBody }),
        );
        body = res.body;
      } catch (err) {
        if (err instanceof OpenSearchError && err.status === 429 && attempt < this.retryAttempts) {
          await sleep(this.backoff(attempt));
          continue;
        }
        throw err;
      }
      const items = Array.isArray(body.items) ? body.items : [];
      if (items.length !== pending.length) {
        throw new OpenSearchError(
          `OpenSearch bulk ${verb} to [${target}] failed: ${items.length} results for ${pending.length} documents`,
        );
      }
      if (!body.errors) return failures;
      const rejected: BulkOp[] = [];
      const rejectedItems: BulkItemFailure[] = [];
      items.forEach((item, i) => {
        const op = pending[i]!;
        const result = asRecord(Object.values(item)[0]) ?? {};
        const status = typeof result.status === 'number' ? result.status : 0;
        if (status >= 200 && status < 300 && result.error === undefined) return;
        // a delete of a document that is not there: nothing to do
        if (deletes && status === 404 && result.error === undefined) return;
        const { type, reason } = describeCause(result.error);
        const failure = { id: op.id, status, type: type ?? 'unknown', reason: reason ?? 'no reason given' };
        if (status === 429) {
          rejected.push(op);
          rejectedItems.push(failure);
        } else {
          failures.push(failure);
        }
      });
      if (rejected.length === 0) return failures;
      if (attempt >= this.retryAttempts) {
        for (const f of rejectedItems) failures.push({ ...f, reason: `${f.reason} (still rejected after ${attempt} attempts)` });
        return failures;
      }
      await sleep(this.backoff(attempt));
      pending = rejected;
    }
  }

  // ---- reads -------------------------------------------------------------------------------

  private async rawSearch(index: string, body: SearchBody): Promise<{ hits: Hit[]; total: number }> {
    const target = this.physicalName(index);
    const res = await this.call(`search [${target}]`, () =>
      // a shard failure is an error, never a silently partial page and total
      this.client.search({ index: target, body, allow_partial_search_results: false }),
    );
    const hits = (res.body.hits?.hits ?? []) as Hit[];
    const raw = res.body.hits?.total as unknown;
    const total = typeof raw === 'number' ? raw : Number(asRecord(raw)?.value ?? 0);
    return { hits, total };
  }

  private idsOf(hits: Hit[]): number[] {
    return hits.map((h) => Number(h._id));
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
    let window = Infinity;
    for (const state of Object.values(res.body ?? {})) {
      const s = asRecord(state) ?? {};
      const v = asRecord(s.settings)?.[key] ?? asRecord(s.defaults)?.[key];
      const n = Number(v ?? DEFAULT_RESULT_WINDOW);
      if (Number.isFinite(n)) window = Math.min(window, n);
    }
    if (!Number.isFinite(window)) window = DEFAULT_RESULT_WINDOW;
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
    const safe = Math.min(DEFAULT_RESULT_WINDOW, this.maxResultWindow);
    const window = from + size > safe ? await this.resultWindow(index) : safe;
    if (from + size <= window) {
      const { hits, total } = await this.rawSearch(index, {
        ...base,
        from,
        size,
        _source: false,
        track_total_hits: true,
      });
      return { ids: this.idsOf(hits), total };
    }
    return this.searchPastWindow(index, base, request.sort, from, size, window);
  }

  /** A page beyond the result window, reached with `search_after` (see the file comment). */
  private async searchPastWindow(
    index: string,
    base: SearchBody,
    sort: SearchRequest['sort'],
    from: number,
    size: number,
    window: number,
  ): Promise<SearchResult> {
    const last = sortField(sort?.at(-1));
    if (last !== 'id') {
      throw new Error(
        `page past the result window of [${this.physicalName(index)}] (${window}, asked from ${from} size ${size}) ` +
          'needs a sort ending with the id tie-breaker',
      );
    }
    if (size > window) {
      throw new Error(`size ${size} exceeds the result window of [${this.physicalName(index)}] (${window})`);
    }
    // 1. the last hit inside the window, and the exact total
    const jump = Math.min(from, window);
    const first = await this.rawSearch(index, {
      ...base,
      from: jump - 1,
      size: 1,
      _source: false,
      track_total_hits: true,
    });
    const total = first.total;
    let cursor = first.hits[0]?.sort;
    if (from >= total || cursor === undefined) return { ids: [], total };
    // 2. walk the rest of the way
    let remaining = from - jump;
    const step = Math.min(window, this.deepPagingStep);
    while (remaining > 0) {
      const n = Math.min(step, remaining);
      const { hits } = await this.rawSearch(index, {
        ...base,
        size: n,
        search_after: cursor,
        _source: false,
        track_total_hits: false,
      });
      cursor = hits[n - 1]?.sort;
      if (hits.length < n || cursor === undefined) return { ids: [], total };
      remaining -= n;
    }
    // 3. the page
    const { hits } = await this.rawSearch(index, {
      ...base,
      size,
      search_after: cursor,
      _source: false,
      track_total_hits: false,
    });
    return { ids: this.idsOf(hits), total };
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
