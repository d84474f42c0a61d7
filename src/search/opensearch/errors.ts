/**
 * How OpenSearch failures reach callers: every failed call becomes an `OpenSearchError` naming
 * the operation, the HTTP status and the error's type and reason (with its root cause when that
 * says more), clipped so that a huge reason cannot flood a log line. An error that means the
 * cluster cannot serve right now (no node reachable, no answer in time, 502/503/504, a full
 * queue's 429) is marked `unavailable`: the API answers it 503 with Retry-After, not 500.
 */
import { errors } from '@opensearch-project/opensearch';

const REASON_MAX = 300;

/** HTTP statuses of a cluster that cannot serve now but may soon: too busy, or a node or shard missing. */
const UNAVAILABLE_STATUSES = new Set([429, 502, 503, 504]);

/**
 * A search that lost a shard copy's node between its phases: OpenSearch tries another copy in
 * the query phase but not in the fetch phase, and answers 500 `search_phase_execution_exception`
 * caused by `node_disconnected_exception` (or `node_not_connected_exception`). The cluster serves
 * the same search again a moment later, so it is an outage, not a fault of the search.
 */
function isNodeLoss(type: string | undefined, reason: string | undefined, detail: string): boolean {
  return type === 'search_phase_execution_exception' && /node_(disconnected|not_connected)_exception/.test(`${reason ?? ''} ${detail}`);
}

/** A failed OpenSearch call: the operation, HTTP status, and the error's type and reason. */
export class OpenSearchError extends Error {
  override readonly name = 'OpenSearchError';
  constructor(
    message: string,
    readonly status?: number,
    readonly type?: string,
    readonly reason?: string,
    /** The cluster could not serve the call now (an outage), as opposed to a fault of the call. */
    readonly unavailable = false,
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

export function clip(s: string): string {
  return s.length > REASON_MAX ? `${s.slice(0, REASON_MAX)}…` : s;
}

export function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** `type` and `reason` of an OpenSearch error object, with the root cause when it says more. */
export function describeCause(error: unknown): { type?: string; reason?: string } {
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

/** Any error of the client's call `what` to the cluster at `node`, as an `OpenSearchError`. */
export function toOpenSearchError(err: unknown, what: string, node: string): Error {
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
      (status !== undefined && UNAVAILABLE_STATUSES.has(status)) || isNodeLoss(type, reason, detail),
    );
  }
  if (err instanceof errors.TimeoutError) {
    const message = `OpenSearch ${what} failed: no answer from ${node} in time (${err.message})`;
    return new OpenSearchError(message, undefined, undefined, undefined, true);
  }
  if (err instanceof errors.ConnectionError || err instanceof errors.NoLivingConnectionsError) {
    const message = `OpenSearch ${what} failed: cannot connect to ${node} (${err.message})`;
    return new OpenSearchError(message, undefined, undefined, undefined, true);
  }
  if (err instanceof errors.DeserializationError) {
    return new OpenSearchError(`OpenSearch ${what} failed: unreadable response from ${node}`);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new OpenSearchError(`OpenSearch ${what} failed: ${message}`);
}

/** Runs one client call, turning its failure into an `OpenSearchError`. */
export type Call = <T>(what: string, fn: () => Promise<T>) => Promise<T>;
