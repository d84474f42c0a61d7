/**
 * A small stand-in for an OpenSearch node, for tests of the requests the OpenSearch engine sends.
 *
 * It listens on 127.0.0.1 (a free port), records every request (method, path, query, parsed
 * body, raw body, time) and answers like a single node would for the APIs the engine uses:
 * index creation and deletion, settings, the mapping's `_meta`, aliases (`HEAD`/`GET /_alias`, `POST /_aliases`),
 * `_cat/indices`, `_bulk` (with `require_alias`, numeric-field parse errors and injected item
 * failures), `_mget`, `_count`, `_refresh`, `_forcemerge` (a no-op) and `_search`. Errors have OpenSearch's shape:
 * `{"error": {"root_cause": [...], "type", "reason"}, "status"}`.
 *
 * `_search` is not an engine: it evaluates only `match_all`, `match_none`, `ids`, `bool` and
 * `function_score` (its inner query); any other clause answers 400 so a test cannot silently
 * rely on semantics that live in the embedded engine. It sorts by stored field values (a
 * `_score` sort key is a constant 1), honours `from`/`size`, `search_after` and the index's
 * `max_result_window`. Writes are visible at once (no refresh simulation).
 *
 * `intercept(fn)` lets a test answer a request itself (a 500, a 429 on the whole bulk, a
 * canned search response); `failBulkItem(id, ...)` makes one document's bulk item fail.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpError, isObject, type Json, searchIndex } from './fake-opensearch-search.js';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** Parsed JSON body; for `_bulk`, the array of parsed NDJSON lines; undefined when empty. */
  body: unknown;
  /** The body as received. */
  raw: string;
  /** `performance.now()` when the request arrived. */
  at: number;
}

export interface FakeResponse {
  status: number;
  body?: unknown;
}

export type Interceptor = (req: RecordedRequest) => FakeResponse | undefined;

export interface FakeIndex {
  name: string;
  /** Flat settings (`index.max_result_window` → `"10000000"`), as OpenSearch reports them. */
  settings: Record<string, string>;
  mappings: { properties?: Record<string, { type?: string }> } & Record<string, unknown>;
  docs: Map<string, Record<string, unknown>>;
}

interface ItemFailure {
  status: number;
  type: string;
  reason: string;
  remaining: number;
}

function errorBody(status: number, type: string, reason: string): FakeResponse {
  return { status, body: { error: { root_cause: [{ type, reason }], type, reason }, status } };
}

/** `{index: {a: 1, analysis: {...}}}` → `{"index.a": "1", "index.analysis....": ...}`. */
function flatten(settings: unknown, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObject(settings)) return out;
  for (const [k, v] of Object.entries(settings)) {
    const key = prefix + k;
    if (isObject(v)) Object.assign(out, flatten(v, `${key}.`));
    else out[key] = Array.isArray(v) ? JSON.stringify(v) : String(v);
  }
  return out;
}

function normaliseSettings(settings: unknown): Record<string, string> {
  const flat = flatten(settings);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(flat)) out[k.startsWith('index.') ? k : `index.${k}`] = v;
  return out;
}

function wildcard(pattern: string): RegExp {
  const re = pattern
    .split('*')
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${re}$`);
}

export class FakeOpenSearch {
  readonly requests: RecordedRequest[] = [];
  readonly indices = new Map<string, FakeIndex>();
  /** alias → physical indices */
  readonly aliases = new Map<string, Set<string>>();
  private readonly interceptors: Interceptor[] = [];
  private readonly itemFailures = new Map<string, ItemFailure>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeOpenSearch> {
    let fake: FakeOpenSearch | undefined;
    const server = createServer((req, res) => {
      void fake!.handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    fake = new FakeOpenSearch(server, `http://127.0.0.1:${port}`);
    return fake;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Answer requests with `fn` first; it returns undefined to let the simulation answer. */
  intercept(fn: Interceptor): void {
    this.interceptors.push(fn);
  }

  /** The next `times` bulk items for document `id` fail with this status, type and reason. */
  failBulkItem(id: string | number, status: number, type: string, reason: string, times = Infinity): void {
    this.itemFailures.set(String(id), { status, type, reason, remaining: times });
  }

  /** Forget recorded requests (state stays). */
  clearRequests(): void {
    this.requests.length = 0;
  }

  /** Recorded requests whose path matches. */
  requestsTo(path: string | RegExp, method?: string): RecordedRequest[] {
    return this.requests.filter(
      (r) =>
        (typeof path === 'string' ? r.path === path : path.test(r.path)) && (method === undefined || r.method === method),
    );
  }

  /** Create an index directly (state set-up for a test). */
  addIndex(name: string, settings: Record<string, unknown> = {}, mappings: Json = {}): FakeIndex {
    const index: FakeIndex = {
      name,
      settings: {
        'index.number_of_shards': '1',
        'index.number_of_replicas': '1',
        ...normaliseSettings(settings),
      },
      mappings: mappings as FakeIndex['mappings'],
      docs: new Map(),
    };
    this.indices.set(name, index);
    return index;
  }

  addAlias(alias: string, index: string): void {
    let set = this.aliases.get(alias);
    if (!set) this.aliases.set(alias, (set = new Set()));
    set.add(index);
  }

  /** The physical indices of a name (an alias, an index, a comma list, wildcards). */
  resolve(names: string, options: { ignoreUnavailable?: boolean } = {}): string[] {
    const out = new Set<string>();
    for (const name of names.split(',')) {
      if (name === '_all') {
        for (const i of this.indices.keys()) out.add(i);
      } else if (name.includes('*')) {
        const re = wildcard(name);
        for (const i of this.indices.keys()) if (re.test(i)) out.add(i);
        for (const [a, set] of this.aliases) if (re.test(a)) for (const i of set) out.add(i);
      } else if (this.indices.has(name)) {
        out.add(name);
      } else if (this.aliases.has(name)) {
        for (const i of this.aliases.get(name)!) out.add(i);
      } else if (!options.ignoreUnavailable) {
        throw new HttpError(404, 'index_not_found_exception', `no such index [${name}]`);
      }
    }
    return [...out];
  }

  private single(name: string): FakeIndex {
    const names = this.resolve(name);
    if (names.length !== 1) {
      throw new HttpError(400, 'illegal_argument_exception', `[${name}] resolves to ${names.length} indices`);
    }
    return this.indices.get(names[0]!)!;
  }

  // ---- HTTP ------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = decodeURIComponent(url.pathname);
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = v;
    let body: unknown;
    let answer: FakeResponse;
    try {
      if (raw !== '') {
        body = path.endsWith('/_bulk')
          ? raw
              .split('\n')
              .filter((l) => l !== '')
              .map((l) => JSON.parse(l) as unknown)
          : (JSON.parse(raw) as unknown);
      }
    } catch {
      body = undefined;
    }
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path, query, body, raw, at: performance.now() };
    this.requests.push(recorded);
    try {
      answer = this.interceptors.map((fn) => fn(recorded)).find((a) => a !== undefined) ?? this.route(recorded);
    } catch (err) {
      answer =
        err instanceof HttpError
          ? errorBody(err.status, err.type, err.message)
          : errorBody(500, 'exception', err instanceof Error ? err.message : String(err));
    }
    res.statusCode = answer.status;
    if (recorded.method === 'HEAD' || answer.body === undefined) {
      res.end();
      return;
    }
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    res.setHeader('content-type', typeof answer.body === 'string' ? 'text/plain' : 'application/json');
    res.end(text);
  }

  private route(r: RecordedRequest): FakeResponse {
    const parts = r.path.split('/').filter((p) => p !== '');
    const [first, second, third] = parts;
    const m = r.method;
    if (first === '_alias' && second !== undefined) return this.getAlias(second, m);
    if (first === '_aliases' && m === 'POST') return this.updateAliases(r.body);
    if (first === '_cat' && second === 'indices') return this.catIndices(third ?? '*');
    if (first === '_bulk') return this.bulk(undefined, r);
    if (first === '_refresh') return this.refresh('_all', r);
    if (first === '_cluster' && second === 'health') {
      // one node, every copy allocated at once
      return { status: 200, body: { cluster_name: 'fake', status: 'green', timed_out: false, number_of_nodes: 1 } };
    }
    if (first === undefined) return { status: 200, body: { version: { distribution: 'opensearch', number: '2.19.2' } } };
    if (second === undefined) {
      if (m === 'PUT') return this.createIndex(first, r.body);
      if (m === 'DELETE') return this.deleteIndex(first, r);
      if (m === 'HEAD') return { status: this.resolve(first, { ignoreUnavailable: true }).length > 0 ? 200 : 404 };
    }
    switch (second) {
      case '_bulk':
        return this.bulk(first, r);
      case '_search':
        return searchIndex(this.single(first), r.body);
      case '_mget':
        return this.mget(first, r.body);
      case '_count':
        return { status: 200, body: { count: this.single(first).docs.size, _shards: { total: 1, successful: 1, failed: 0 } } };
      case '_refresh':
        return this.refresh(first, r);
      case '_forcemerge':
        // one segment a shard already: merging changes nothing here
        return this.refresh(first, r);
      case '_settings':
        return m === 'PUT' ? this.putSettings(first, r.body) : this.getSettings(first, third, r);
      case '_mapping':
        return m === 'GET' ? this.getMapping(first) : this.putMapping(first, r.body);
      case '_alias':
        if (third !== undefined) return this.getAlias(third, m);
    }
    throw new HttpError(400, 'illegal_argument_exception', `fake OpenSearch has no route for ${m} ${r.path}`);
  }

  // ---- indices, settings, aliases -----------------------------------------------------------

  private createIndex(name: string, body: unknown): FakeResponse {
    if (this.indices.has(name) || this.aliases.has(name)) {
      throw new HttpError(400, 'resource_already_exists_exception', `index [${name}/fakeuuid] already exists`);
    }
    const b = isObject(body) ? body : {};
    this.addIndex(name, isObject(b.settings) ? b.settings : {}, isObject(b.mappings) ? b.mappings : {});
    if (isObject(b.aliases)) for (const alias of Object.keys(b.aliases)) this.addAlias(alias, name);
    return { status: 200, body: { acknowledged: true, shards_acknowledged: true, index: name } };
  }

  private deleteIndex(names: string, r: RecordedRequest): FakeResponse {
    for (const name of names.split(',')) {
      if (!this.indices.has(name)) {
        if (r.query.ignore_unavailable === 'true') continue;
        throw new HttpError(404, 'index_not_found_exception', `no such index [${name}]`);
      }
      this.indices.delete(name);
      for (const [alias, set] of this.aliases) {
        set.delete(name);
        if (set.size === 0) this.aliases.delete(alias);
      }
    }
    return { status: 200, body: { acknowledged: true } };
  }

  private getSettings(names: string, filter: string | undefined, r: RecordedRequest): FakeResponse {
    const out: Json = {};
    for (const name of this.resolve(names)) {
      const index = this.indices.get(name)!;
      const pick = (s: Record<string, string>) =>
        Object.fromEntries(Object.entries(s).filter(([k]) => filter === undefined || filter.split(',').some((f) => wildcard(f).test(k))));
      const entry: Json = { settings: pick(index.settings) };
      if (r.query.include_defaults === 'true') entry.defaults = pick({ 'index.max_result_window': '10000' });
      out[name] = entry;
    }
    return { status: 200, body: out };
  }

  private putSettings(names: string, body: unknown): FakeResponse {
    for (const name of this.resolve(names)) Object.assign(this.indices.get(name)!.settings, normaliseSettings(body));
    return { status: 200, body: { acknowledged: true } };
  }

  /** Only `_meta` changes: the fake neither adds fields nor checks them. */
  private putMapping(names: string, body: unknown): FakeResponse {
    const meta = isObject(body) ? body._meta : undefined;
    if (meta !== undefined) for (const name of this.resolve(names)) this.indices.get(name)!.mappings._meta = meta;
    return { status: 200, body: { acknowledged: true } };
  }

  private getMapping(names: string): FakeResponse {
    const out: Json = {};
    for (const name of this.resolve(names)) out[name] = { mappings: this.indices.get(name)!.mappings as Json };
    return { status: 200, body: out };
  }

  private refresh(names: string, r: RecordedRequest): FakeResponse {
    const n = this.resolve(names, { ignoreUnavailable: r.query.ignore_unavailable === 'true' }).length;
    return { status: 200, body: { _shards: { total: n, successful: n, failed: 0 } } };
  }

  private getAlias(name: string, method: string): FakeResponse {
    const set = this.aliases.get(name);
    if (!set || set.size === 0) {
      return method === 'HEAD' ? { status: 404 } : { status: 404, body: { error: `alias [${name}] missing`, status: 404 } };
    }
    if (method === 'HEAD') return { status: 200 };
    const out: Json = {};
    for (const i of set) out[i] = { aliases: { [name]: {} } };
    return { status: 200, body: out };
  }

  private updateAliases(body: unknown): FakeResponse {
    const actions = isObject(body) && Array.isArray(body.actions) ? (body.actions as unknown[]) : [];
    // validate everything first: the real call is atomic
    for (const action of actions) {
      if (!isObject(action)) throw new HttpError(400, 'parsing_exception', 'malformed alias action');
      const add = action.add;
      const remove = action.remove;
      if (isObject(add)) {
        const index = String(add.index);
        if (!this.indices.has(index)) throw new HttpError(404, 'index_not_found_exception', `no such index [${index}]`);
        if (this.indices.has(String(add.alias))) {
          throw new HttpError(400, 'invalid_alias_name_exception', `an index exists with the same name as the alias`);
        }
      } else if (isObject(remove)) {
        if (!this.aliases.get(String(remove.alias))?.has(String(remove.index))) {
          throw new HttpError(404, 'aliases_not_found_exception', `aliases [${String(remove.alias)}] missing`);
        }
      } else {
        throw new HttpError(400, 'parsing_exception', 'unsupported alias action');
      }
    }
    for (const action of actions as Json[]) {
      if (isObject(action.add)) this.addAlias(String(action.add.alias), String(action.add.index));
      if (isObject(action.remove)) {
        const alias = String(action.remove.alias);
        const set = this.aliases.get(alias)!;
        set.delete(String(action.remove.index));
        if (set.size === 0) this.aliases.delete(alias);
      }
    }
    return { status: 200, body: { acknowledged: true } };
  }

  private catIndices(pattern: string): FakeResponse {
    const names = this.resolve(pattern, { ignoreUnavailable: true }).sort();
    const rows = names.map((index) => ({
      health: 'green',
      status: 'open',
      index,
      'docs.count': String(this.indices.get(index)!.docs.size),
    }));
    return { status: 200, body: rows };
  }

  // ---- documents ---------------------------------------------------------------------------

  private parseError(index: FakeIndex, id: string, doc: Json): string | undefined {
    const props = index.mappings.properties ?? {};
    for (const [field, value] of Object.entries(doc)) {
      const type = props[field]?.type;
      if (!['integer', 'long', 'float', 'double'].includes(type ?? '') || value === null) continue;
      const values = Array.isArray(value) ? (value as unknown[]) : [value];
      for (const v of values) {
        if (typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)))) continue;
        return `failed to parse field [${field}] of type [${type}] in document with id '${id}'. Preview of field's value: '${String(v)}'`;
      }
    }
    return undefined;
  }

  private bulk(pathIndex: string | undefined, r: RecordedRequest): FakeResponse {
    if (!r.raw.endsWith('\n')) {
      throw new HttpError(400, 'illegal_argument_exception', 'The bulk request must be terminated by a newline [\\n]');
    }
    const lines = Array.isArray(r.body) ? (r.body as Json[]) : [];
    const requireAlias = r.query.require_alias === 'true';
    const items: Json[] = [];
    let errors = false;
    for (let i = 0; i < lines.length; i++) {
      const action = lines[i]!;
      const [op, meta] = Object.entries(action)[0] ?? [];
      if (!isObject(meta) || (op !== 'index' && op !== 'delete')) {
        throw new HttpError(400, 'illegal_argument_exception', `unsupported bulk action ${JSON.stringify(action)}`);
      }
      const source = op === 'index' ? lines[++i] : undefined;
      const target = String(meta._index ?? pathIndex);
      const id = String(meta._id);
      const item = (status: number, extra: Json): void => {
        items.push({ [op]: { _index: target, _id: id, status, ...extra } });
      };
      const fail = (status: number, type: string, reason: string): void => {
        errors = true;
        item(status, { error: { type, reason, index: target } });
      };
      const injected = this.itemFailures.get(id);
      if (injected && injected.remaining > 0) {
        injected.remaining--;
        fail(injected.status, injected.type, injected.reason);
        continue;
      }
      if (requireAlias && !this.aliases.has(target)) {
        fail(
          404,
          'index_not_found_exception',
          `no such index [${target}] and [require_alias] request flag is [true] and [${target}] is not an alias`,
        );
        continue;
      }
      let physical: string;
      try {
        const names = this.resolve(target);
        if (names.length !== 1) throw new HttpError(400, 'illegal_argument_exception', 'no write index');
        physical = names[0]!;
      } catch (err) {
        if (op === 'delete' || !(err instanceof HttpError) || err.status !== 404) {
          const e = err as HttpError;
          fail(e.status, e.type, e.message);
          continue;
        }
        physical = this.addIndex(target).name; // auto-create, as OpenSearch does by default
      }
      const index = this.indices.get(physical)!;
      if (op === 'delete') {
        const existed = index.docs.delete(id);
        item(existed ? 200 : 404, { result: existed ? 'deleted' : 'not_found' });
        continue;
      }
      const doc = isObject(source) ? source : {};
      const parse = this.parseError(index, id, doc);
      if (parse !== undefined) {
        fail(400, 'mapper_parsing_exception', parse);
        continue;
      }
      const existed = index.docs.has(id);
      index.docs.set(id, doc);
      item(existed ? 200 : 201, { result: existed ? 'updated' : 'created', _version: 1 });
    }
    return { status: 200, body: { took: 1, errors, items } };
  }

  private mget(names: string, body: unknown): FakeResponse {
    const index = this.single(names);
    const ids = isObject(body) && Array.isArray(body.ids) ? body.ids.map(String) : [];
    const docs = ids.map((id) => {
      const doc = index.docs.get(id);
      return doc === undefined
        ? { _index: index.name, _id: id, found: false }
        : { _index: index.name, _id: id, _version: 1, found: true, _source: doc };
    });
    return { status: 200, body: { docs } };
  }
}
