/**
 * The fake node's `_search` (see fake-opensearch.ts): only `match_all`, `match_none`, `ids`,
 * `bool` and `function_score` are evaluated, hits are sorted by stored field values, paged with
 * `from`/`size` or `search_after` within the index's `max_result_window`. Also the error its
 * handlers throw to answer with OpenSearch's error shape.
 */

export type Json = Record<string, unknown>;

/** What `_search` reads of an index. */
export interface SearchedIndex {
  name: string;
  settings: Record<string, string>;
  docs: Map<string, Json>;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    reason: string,
  ) {
    super(reason);
  }
}

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return 1;
  if (b === undefined || b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : 1;
}

interface SortKey {
  field: string;
  desc: boolean;
}

function sortKeys(sort: unknown): SortKey[] {
  if (sort === undefined) return [];
  const list = Array.isArray(sort) ? sort : [sort];
  return list.map((clause): SortKey => {
    if (typeof clause === 'string') return { field: clause, desc: clause === '_score' };
    if (!isObject(clause)) throw new HttpError(400, 'parsing_exception', 'malformed sort');
    const [field, spec] = Object.entries(clause)[0] ?? [];
    if (field === undefined) throw new HttpError(400, 'parsing_exception', 'empty sort clause');
    const order = typeof spec === 'string' ? spec : isObject(spec) ? spec.order : undefined;
    return { field, desc: order === undefined ? field === '_score' : order === 'desc' };
  });
}

function matches(query: unknown, id: string): boolean {
  if (query === undefined) return true;
  if (!isObject(query)) throw new HttpError(400, 'parsing_exception', 'malformed query');
  const [kind, spec] = Object.entries(query)[0] ?? [];
  const list = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  switch (kind) {
    case 'match_all':
      return true;
    case 'match_none':
      return false;
    case 'ids':
      return isObject(spec) && list(spec.values).map(String).includes(id);
    case 'function_score':
      return isObject(spec) ? matches(spec.query, id) : true;
    case 'bool': {
      if (!isObject(spec)) return true;
      const must = [...list(spec.must), ...list(spec.filter)];
      const should = list(spec.should);
      if (!must.every((q) => matches(q, id))) return false;
      if (list(spec.must_not).some((q) => matches(q, id))) return false;
      const minimum = spec.minimum_should_match ?? (must.length === 0 ? 1 : 0);
      return should.filter((q) => matches(q, id)).length >= Number(minimum);
    }
    default:
      throw new HttpError(
        400,
        'parsing_exception',
        `the fake OpenSearch evaluates only match_all, match_none, ids, bool and function_score, not [${kind}]`,
      );
  }
}

/** The answer of `_search` on one index. */
export function searchIndex(index: SearchedIndex, body: unknown): { status: number; body: unknown } {
  const b = isObject(body) ? body : {};
  const from = typeof b.from === 'number' ? b.from : 0;
  const size = typeof b.size === 'number' ? b.size : 10;
  const after = Array.isArray(b.search_after) ? (b.search_after as unknown[]) : undefined;
  if (after !== undefined && from > 0) {
    throw new HttpError(
      400,
      'action_request_validation_exception',
      'Validation Failed: 1: [from] parameter must be set to 0 when [search_after] is used;',
    );
  }
  const window = Number(index.settings['index.max_result_window'] ?? 10_000);
  if (from + size > window) {
    const reason =
      `Result window is too large, from + size must be less than or equal to: [${window}] but was [${from + size}]. ` +
      'See the scroll api for a more efficient way to request large data sets. This limit can be set by changing ' +
      'the [index.max_result_window] index level setting.';
    return {
      status: 500,
      body: {
        error: {
          root_cause: [{ type: 'illegal_argument_exception', reason }],
          type: 'search_phase_execution_exception',
          reason: 'all shards failed',
        },
        status: 500,
      },
    };
  }
  const keys = sortKeys(b.sort);
  const valueOf = (doc: Json, field: string): unknown => (field === '_score' ? 1 : doc[field]);
  let hits = [...index.docs.entries()]
    .filter(([id]) => matches(b.query, id))
    .map(([id, doc]) => ({ id, sort: keys.map((k) => valueOf(doc, k.field)) }));
  const compare = (x: unknown[], y: unknown[]): number => {
    for (let i = 0; i < keys.length; i++) {
      const c = compareValues(x[i], y[i]);
      if (c !== 0) return keys[i]!.desc ? -c : c;
    }
    return 0;
  };
  hits.sort((x, y) => compare(x.sort, y.sort));
  const total = hits.length;
  if (after !== undefined) {
    if (after.length !== keys.length) {
      throw new HttpError(400, 'illegal_argument_exception', `search_after has ${after.length} value(s) but sort has ${keys.length}.`);
    }
    hits = hits.filter((h) => compare(h.sort, after) > 0);
  }
  const page = hits.slice(from, from + size).map((h) => ({
    _index: index.name,
    _id: h.id,
    _score: keys.length === 0 ? 1 : null,
    ...(keys.length > 0 ? { sort: h.sort } : {}),
  }));
  const out: Json = { max_score: null, hits: page };
  if (b.track_total_hits !== false) out.total = { value: total, relation: 'eq' };
  return {
    status: 200,
    body: { took: 1, timed_out: false, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 }, hits: out },
  };
}
