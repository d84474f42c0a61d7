/**
 * Route parameters read through the schemas that document them (src/api/schemas/params.ts), as Hono
 * validators: what a handler gets from `c.req.valid('query' | 'param')` is what its operation in
 * the OpenAPI document lists, so the two cannot drift apart.
 */
import type { Context } from 'hono';
import { validator } from 'hono/validator';
import { z } from 'zod';
import { ApiError, notFound } from '../answers/errors.js';
import { isIdPathParam, pathIdValue, pathParams, type PathParamName } from '../../api/schemas/params.js';

/**
 * The query string by name: one string, or every value of a name given more than once. Decoded
 * like URLSearchParams (the WHATWG rules), the way `q` has always been read.
 */
export function queryValues(url: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of new URL(url).searchParams) {
    const seen = out[name];
    out[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

/** The schema's message for a refused value; a missing required parameter is named. */
function issueMessage(issue: z.core.$ZodIssue): string {
  const name = issue.path.join('.');
  if (issue.code === 'invalid_type' && name !== '' && /received undefined$/.test(issue.message)) return `${name} is required`;
  return issue.message;
}

/** The query read by `schema`; a value it refuses is an `ApiError` 400 with the schema's message. */
export function parseQuery<T extends z.ZodType>(c: Context, schema: T): z.output<T> {
  const parsed = schema.safeParse(queryValues(c.req.url));
  if (!parsed.success) throw new ApiError(400, issueMessage(parsed.error.issues[0]!));
  return parsed.data;
}

/** The query read by `schema`; a value it refuses is 400 with the schema's message. */
export const validQuery = <T extends z.ZodType>(schema: T) => validator('query', (_value, c: Context): z.output<T> => parseQuery(c, schema));

/**
 * The path parameters `names`, read by their schemas; a value they refuse is 404. Ids alone are
 * read by `pathIdValue`, which gives what their schemas give without running them.
 */
export const validPath = <const N extends PathParamName>(...names: N[]) => {
  const schema = z.object(Object.fromEntries(names.map((name) => [name, pathParams[name]]))) as unknown as z.ZodObject<{
    [K in N]: (typeof pathParams)[K];
  }>;
  type Params = z.output<typeof schema>;
  const readIds = names.every(isIdPathParam)
    ? (value: Record<string, string>): Params | undefined => {
        const out: Record<string, number> = {};
        for (const name of names) {
          const id = pathIdValue(value[name]);
          if (id === undefined) return undefined;
          out[name] = id;
        }
        return out as Params;
      }
    : undefined;
  return validator('param', (value, c: Context) => {
    if (readIds) return readIds(value) ?? notFound(c);
    const parsed = schema.safeParse(value);
    return parsed.success ? parsed.data : notFound(c);
  });
};
