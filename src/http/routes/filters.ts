/**
 * GET /filters/system, /filters/user and /filters/:filter_id (reference §5.8), and the workbench's
 * /filters/explain, /filters/test and /filters/images by name.
 * - system: every system filter by id;
 * - user: the key user's own filters by id; 403 `{"error":"Forbidden"}` without a valid key;
 * - one filter: shown if system, public, own, or to moderators and admins; else 404.
 *
 * And the key user's own filters written: POST /filters creates one, POST /filters/:filter_id
 * changes the given fields of one (a filter that is not the caller's own is 404).
 */
import { Hono } from 'hono';
import type { z } from 'zod';
import { canViewFilter } from '../../contexts/filters/access.js';
import { findFilter, listSystemFilters, listUserFilters } from '../../contexts/filters/load.js';
import type { FilterRow } from '../../contexts/filters/types.js';
import type { Page } from '../../contexts/page.js';
import type { AppContext, AppEnv } from '../context.js';
import { createUserFilter, FilterInputError, updateUserFilter, type UserFilterInput } from '../../contexts/filters/user-filters.js';
import { errorResponse, forbidden, notFound } from '../errors.js';
import { cacheFor } from '../middleware/cache.js';
import { toPaging } from '../middleware/paging.js';
import type { FilterListResponse, FilterResponse } from '../schemas/envelopes.js';
import { pathIdValue, routeQuery } from '../schemas/params.js';
import { nameRoute } from '../route-name.js';
import { parseQuery } from '../validate.js';
import { FilterWriteBody } from '../schemas/workbench.js';
import { isJson, leaveBodyUnread, limitBody, refuseUnread } from '../middleware/body-limit.js';

/** A filter is a few small strings: 64 KiB is ample. */
const MAX_FILTER_BODY_BYTES = 64 * 1024;
import { explainInlineFilter, imagesUnderFilter, testFilter } from '../workbench/endpoints.js';
import { filterView } from '../views/filter.js';

const filterPage = ({ rows, total }: Page<FilterRow>) =>
  ({ filters: rows.map(filterView), total }) satisfies z.output<typeof FilterListResponse>;

const systemFilters = async (c: AppContext) => {
  const body = filterPage(await listSystemFilters(c.get('deps').db, toPaging(parseQuery(c, routeQuery.paged))));
  cacheFor(c, 300);
  return c.json(body);
};

const userFilters = async (c: AppContext) => {
  const user = c.get('user');
  // the paging is read first: a malformed value is 400 before the missing key is 403, as it was
  const paging = toPaging(parseQuery(c, routeQuery.paged));
  if (user === null) return forbidden(c);
  const body = filterPage(await listUserFilters(c.get('deps').db, user.id, paging));
  cacheFor(c, 60, { dependsOnUser: true });
  return c.json(body);
};

/** The JSON body's filter fields, or the answer refusing it. */
async function filterInput(c: AppContext): Promise<UserFilterInput | Response> {
  if (!isJson(c.req.header('content-type'))) return refuseUnread(c, 415, 'Content-Type must be application/json');
  let raw: unknown;
  try {
    raw = JSON.parse(await c.req.text());
  } catch {
    return errorResponse(c, 400, 'Malformed JSON body');
  }
  const parsed = FilterWriteBody.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return errorResponse(c, 400, `${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  const f = parsed.data.filter;
  return {
    name: f.name,
    description: f.description,
    public: f.public,
    hiddenTagIds: f.hidden_tag_ids,
    spoileredTagIds: f.spoilered_tag_ids,
    hiddenComplex: f.hidden_complex,
    spoileredComplex: f.spoilered_complex,
  };
}

/** Create (`id` undefined) or change one of the key user's own filters. */
async function writeFilter(c: AppContext, id?: number): Promise<Response> {
  const user = c.get('user');
  if (user === null) {
    leaveBodyUnread(c);
    return forbidden(c);
  }
  const input = await filterInput(c);
  if (input instanceof Response) return input;
  try {
    const db = c.get('deps').db;
    const row = id === undefined ? await createUserFilter(db, user, input) : await updateUserFilter(db, user, id, input);
    if (row === null) return notFound(c);
    return c.json({ filter: filterView(row) } satisfies z.output<typeof FilterResponse>);
  } catch (err) {
    if (err instanceof FilterInputError) return errorResponse(c, 400, err.message);
    throw err;
  }
}

const oneFilter = async (c: AppContext, id: number) => {
  const user = c.get('user');
  const filter = await findFilter(c.get('deps').db, id);
  if (!filter || !canViewFilter(user, filter)) return notFound(c);
  // Public and system filters look the same to everyone; others only to their viewers.
  cacheFor(c, 300, { dependsOnUser: !(filter.system || filter.public) });
  return c.json({ filter: filterView(filter) } satisfies z.output<typeof FilterResponse>);
};

/** The fixed names in the place of a filter id (the workbench's two included). */
const NAMED = new Map<string, (c: AppContext) => Promise<Response>>([
  ['system', systemFilters],
  ['user', userFilters],
  ['explain', explainInlineFilter],
  ['test', testFilter],
  ['images', imagesUnderFilter],
]);

export function filterRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // One route for names and ids: Hono's RegExpRouter cannot hold a fixed name beside a parameter
  // in the same place, and would leave the app on its slower router.
  app.get('/filters/:filter_id', (c) => {
    const segment = c.req.param('filter_id');
    const named = NAMED.get(segment);
    if (named) {
      nameRoute(c, 'filter_id', segment);
      return named(c);
    }
    const id = pathIdValue(segment);
    return id === undefined ? notFound(c) : oneFilter(c, id);
  });
  app.post('/filters', limitBody(MAX_FILTER_BODY_BYTES), (c) => writeFilter(c));
  app.post('/filters/:filter_id', limitBody(MAX_FILTER_BODY_BYTES), (c) => {
    const id = pathIdValue(c.req.param('filter_id'));
    return id === undefined ? notFound(c) : writeFilter(c, id);
  });
  return app;
}
