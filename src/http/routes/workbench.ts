/**
 * `GET /filters/:filter_id/explain?image_id=N`: why a saved filter the caller may view hides or
 * spoilers an image. The workbench's other endpoints are answered by routes/filters.ts's one route
 * of `/filters/<name or id>`; all of them are handlers of workbench/endpoints.ts.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../context.js';
import { notFound } from '../errors.js';
import { workbenchQuery } from '../schemas/workbench.js';
import { validPath, validQuery } from '../validate.js';
import { explainResponse, savedSpec } from '../workbench/endpoints.js';

export function workbenchRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/filters/:filter_id/explain', validPath('filter_id'), validQuery(workbenchQuery.filterExplainById), async (c) => {
    const spec = await savedSpec(c, c.req.valid('param').filter_id);
    if (spec === null) return notFound(c);
    return explainResponse(c, spec, c.req.valid('query').image_id);
  });
  return app;
}
