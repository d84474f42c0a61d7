/**
 * The shape of one operation of the OpenAPI document (`OperationSpec`), the answers many
 * operations share (304, 403, 429, 500 and their headers), and builders for the three common
 * kinds of read: showing one record, listing records, and searching an index.
 */
import { z } from 'zod';
import type { IndexName } from '../../search/indexes/definition.js';
import * as S from '../schemas/index.js';
import { searchFieldsDescription } from './descriptions.js';

export type HttpMethod = 'get' | 'post';

/** How an operation uses the `key` security scheme. */
export type KeyUse = 'optional' | 'required';

export interface ResponseSpec {
  description: string;
  /** The body; absent for bodiless answers (304). */
  schema?: z.ZodType;
  /** Response headers, by component name (see `HEADERS`). */
  headers?: readonly HeaderName[];
  /** The body's media type when it is not JSON (a Server-Sent Events stream). */
  contentType?: 'text/event-stream';
}

export interface RequestBodySpec {
  required: boolean;
  description: string;
  content: Partial<Record<'application/json' | 'application/x-www-form-urlencoded' | 'multipart/form-data', z.ZodType>>;
}

export interface OperationSpec {
  method: HttpMethod;
  /** OpenAPI path template relative to `API_PREFIX`, e.g. `/images/{image_id}`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  query: z.ZodObject;
  key: KeyUse;
  requestBody?: RequestBodySpec;
  responses: Readonly<Record<number, ResponseSpec>>;
}

// ---------------------------------------------------------------------------------------------
// Answers shared by many operations
// ---------------------------------------------------------------------------------------------

export const HEADERS = {
  'Cache-Control': {
    description:
      'How long the answer may be kept: `public, max-age=N`, `private, max-age=N` when it depends on the key, `no-store` on errors. Clients must cache and respect it.',
    schema: { type: 'string' },
  },
  ETag: {
    description: 'Entity tag of the body; send it back in `If-None-Match` to get a bodiless 304 while it is unchanged.',
    schema: { type: 'string' },
  },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 } },
} as const;
export type HeaderName = keyof typeof HEADERS;

const cached = ['Cache-Control', 'ETag'] as const;

export const ok = (schema: z.ZodType, description: string): ResponseSpec => ({ description, schema, headers: cached });

/** 403 bodies: `{"error"}` (refused key, hidden content, missing key) or a ban. */
const ForbiddenBody = z.union([S.ErrorBody, S.BanErrorBody]);

export const notModified: ResponseSpec = {
  description: 'Not Modified: the `If-None-Match` entity tag still matches; no body.',
  headers: cached,
};
export const notFound = (what: string): ResponseSpec => ({ description: `${what}: \`{"error": "Not found"}\`.`, schema: S.ErrorBody });
export const forbidden = (extra?: string): ResponseSpec => ({
  description: `${extra ? `${extra} ` : ''}The key belongs to a deactivated or unconfirmed account, or the caller is banned (the ban body says until when and why).`,
  schema: ForbiddenBody,
});
export const tooMany: ResponseSpec = {
  description:
    'Too many requests: wait `Retry-After` seconds, then back off exponentially. Repeated excess leads to a ban. A request that sends a body before the last `Retry-After` it was given is over gets its refusal (this one, or a ban\'s 403) after a pause of about a second, with `Connection: close` and its body unread.',
  schema: S.ErrorBody,
  headers: ['Retry-After'],
};
export const busyDecoding: ResponseSpec = {
  description: 'Too many images are being decoded at once (submissions and reverse searches share two decoders and a queue of eight, each waiting at most 5 s), or the server is stopping: wait `Retry-After` seconds and try again.',
  schema: S.ErrorBody,
  headers: ['Retry-After'],
};
export const internal: ResponseSpec = { description: 'Internal Error: `{"error": "Internal Error"}`; retry later with backoff.', schema: S.ErrorBody };
export const queryError: ResponseSpec = {
  description:
    'The search query does not compile (or `q` is not a single string): `{"error": "<parser message>", "position": {"offset", "line", "column"}, "excerpt": {"text", "at"}}`; clients that read only `error` see the reference\'s body.',
  schema: S.QueryErrorBody,
};

/** The answers every read operation can give besides its own. */
export const readAnswers = (own: Record<number, ResponseSpec>, forbiddenExtra?: string): Record<number, ResponseSpec> => ({
  ...own,
  304: notModified,
  403: forbidden(forbiddenExtra),
  429: tooMany,
  500: internal,
});

// ---------------------------------------------------------------------------------------------
// Operations of the common kinds
// ---------------------------------------------------------------------------------------------


export const Q = S.routeQuery;

/** A GET that anyone may call, a key being optional. */
const read = (op: Omit<OperationSpec, 'method' | 'key'>): OperationSpec => ({ method: 'get', key: 'optional', ...op });

/** What a read operation states about itself; the constructors below add its query and answers. */
interface ReadOperation {
  path: string;
  operationId: string;
  tag: string;
  /** Also the description of the 200 answer. */
  summary: string;
  description: string;
  /** The body of the 200 answer. */
  schema: z.ZodType;
  /** When the operation can answer 404: what that means. */
  missing?: string;
}

export const show = ({
  path,
  operationId,
  tag,
  summary,
  description,
  schema,
  missing,
  forbiddenExtra,
}: ReadOperation & { missing: string; forbiddenExtra?: string }): OperationSpec =>
  read({ path, operationId, tag, summary, description, query: Q.show, responses: readAnswers({ 200: ok(schema, summary), 404: notFound(missing) }, forbiddenExtra) });

export const list = ({ path, operationId, tag, summary, description, schema, missing }: ReadOperation): OperationSpec =>
  read({ path, operationId, tag, summary, description, query: Q.paged, responses: readAnswers(missing ? { 200: ok(schema, summary), 404: notFound(missing) } : { 200: ok(schema, summary) }) });

export const search = (
  path: string,
  operationId: string,
  index: IndexName,
  summary: string,
  description: string,
  schema: z.ZodType,
  query: z.ZodObject = Q.search,
): OperationSpec =>
  read({
    path,
    operationId,
    tag: 'Search',
    summary,
    description: `${description}\n\n${searchFieldsDescription(index)}`,
    query,
    responses: readAnswers({ 200: ok(schema, summary), 400: queryError }),
  });
