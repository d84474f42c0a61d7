/**
 * Writes through `_bulk`: documents and deletions as NDJSON operations, cut into requests of at
 * most `maxDocs` documents and `maxBytes` bytes, items (or whole requests) rejected with 429
 * retried with exponential backoff, and the failures that remain reported together in one
 * `BulkWriteError` (the other documents of the batch are applied).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { API, Client, Types } from '@opensearch-project/opensearch';
import type { IndexDocument } from '../engine.js';
import { asRecord, type BulkItemFailure, BulkWriteError, type Call, clip, describeCause, OpenSearchError } from './errors.js';

const FAILURES_IN_MESSAGE = 10;

/** One operation of a `_bulk` body, measured once. */
export interface BulkOp {
  id: string;
  ndjson: string;
  bytes: number;
}

export type BulkParams = Omit<API.Bulk_Request, 'body'>;

export interface BulkOptions {
  /** Documents per request. */
  maxDocs: number;
  /** Bytes of NDJSON per request (a larger document goes alone). */
  maxBytes: number;
  /** Attempts of an item (or a whole request) rejected with 429. */
  attempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
  /**
   * Requests of one write in flight at once. While the node indexes one chunk, the next is on
   * the wire and the one after is being serialised here: a reindex keeps every core of a node
   * busy instead of alternating between the client and the node.
   */
  concurrency: number;
}

function docId(doc: IndexDocument): string {
  const id: unknown = doc.id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) {
    throw new Error(`index document without an integer id: ${clip(JSON.stringify(doc))}`);
  }
  return String(id);
}

/** `index` operations writing these documents under their ids. */
export function indexOps(docs: IndexDocument[]): BulkOp[] {
  return docs.map((doc) => {
    const id = docId(doc);
    const ndjson = `${JSON.stringify({ index: { _id: id } })}\n${JSON.stringify(doc)}\n`;
    return { id, ndjson, bytes: Buffer.byteLength(ndjson) };
  });
}

/** `delete` operations of these ids. */
export function deleteOps(ids: number[]): BulkOp[] {
  return ids.map((n) => {
    if (!Number.isSafeInteger(n)) throw new Error(`cannot remove document with id ${String(n)}`);
    const id = String(n);
    const ndjson = `${JSON.stringify({ delete: { _id: id } })}\n`;
    return { id, ndjson, bytes: Buffer.byteLength(ndjson) };
  });
}

export class BulkSender {
  constructor(
    private readonly client: Client,
    private readonly call: Call,
    private readonly options: BulkOptions,
  ) {}

  /** Sends every operation to `target`; throws a `BulkWriteError` listing those that failed for good. */
  async send(verb: 'write' | 'remove', target: string, ops: BulkOp[], params: BulkParams, deletes: boolean): Promise<void> {
    const chunks = this.chunks(ops);
    // Operations on the same id must land in order; only a write whose ids are all distinct
    // (every reindex batch, most outbox batches) sends its chunks side by side.
    const parallel = new Set(ops.map((op) => op.id)).size === ops.length ? this.options.concurrency : 1;
    const failures: BulkItemFailure[] = [];
    let next = 0;
    let failed = false;
    const lane = async () => {
      while (next < chunks.length && !failed) {
        const chunk = chunks[next++]!;
        try {
          failures.push(...(await this.sendChunk(verb, target, chunk, params, deletes)));
        } catch (err) {
          // the other lanes stop after their current request: the write has failed
          failed = true;
          throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, chunks.length) }, lane));
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

  private chunks(ops: BulkOp[]): BulkOp[][] {
    const out: BulkOp[][] = [];
    let current: BulkOp[] = [];
    let bytes = 0;
    for (const op of ops) {
      if (current.length > 0 && (current.length >= this.options.maxDocs || bytes + op.bytes > this.options.maxBytes)) {
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
    return Math.min(this.options.maxDelayMs, this.options.initialDelayMs * 2 ** (attempt - 1));
  }

  /** One chunk, retrying the items (or the whole request) rejected with 429; returns the rest. */
  private async sendChunk(
    verb: string,
    target: string,
    chunk: BulkOp[],
    params: BulkParams,
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
        if (err instanceof OpenSearchError && err.status === 429 && attempt < this.options.attempts) {
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
      if (attempt >= this.options.attempts) {
        for (const f of rejectedItems) failures.push({ ...f, reason: `${f.reason} (still rejected after ${attempt} attempts)` });
        return failures;
      }
      await sleep(this.backoff(attempt));
      pending = rejected;
    }
  }
}
