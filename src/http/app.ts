/**
 * The HTTP application: the read API under `/api/v1/json`, the stored files (embedded CDN) and
 * `/healthz`. Order of the shared middleware: dependencies, CORS preflight, cache headers (which
 * wrap every answer, errors included); under `/api/v1/json` also key auth and the current filter.
 */
import { Hono } from 'hono';
import type { AppDeps, AppEnv } from './context.js';
import { cacheHeaders, corsPreflight } from './middleware/cache.js';
import { errorHandler, notFoundHandler } from './middleware/errors.js';
import { keyAuth } from './middleware/auth.js';
import { currentFilter } from './middleware/filter.js';
import { commentRoutes } from './routes/comments.js';
import { fileRoutes } from './routes/files.js';
import { filterRoutes } from './routes/filters.js';
import { forumRoutes } from './routes/forums.js';
import { healthRoutes } from './routes/health.js';
import { imageRoutes } from './routes/images.js';
import { oembedRoutes } from './routes/oembed.js';
import { openapiRoutes } from './routes/openapi.js';
import { postRoutes } from './routes/posts.js';
import { profileRoutes } from './routes/profiles.js';
import { reverseRoutes } from './routes/reverse.js';
import { searchRoutes } from './routes/search.js';
import { tagRoutes } from './routes/tags.js';
import { uploadRoutes } from './routes/upload.js';

export type { AppDeps, AppEnv } from './context.js';

export const API_PREFIX = '/api/v1/json';

/** The `/api/v1/json` routes, behind key auth and the current filter. */
export function createApiRoutes(): Hono<AppEnv> {
  const api = new Hono<AppEnv>();
  api.use('*', keyAuth());
  api.use('*', currentFilter());
  api.route('/', imageRoutes());
  api.route('/', commentRoutes());
  api.route('/', postRoutes());
  api.route('/', profileRoutes());
  api.route('/', tagRoutes());
  api.route('/', filterRoutes());
  api.route('/', forumRoutes());
  api.route('/', oembedRoutes());
  api.route('/', uploadRoutes());
  api.route('/', reverseRoutes());
  api.route('/', searchRoutes());
  return api;
}

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(errorHandler(deps.logger));
  app.notFound(notFoundHandler);
  app.use('*', async (c, next) => {
    c.set('deps', deps);
    await next();
  });
  app.use('*', corsPreflight());
  app.use('*', cacheHeaders());
  app.route('/', healthRoutes());
  app.route('/', fileRoutes(deps.config.dataDir));
  app.route('/', openapiRoutes());
  app.route(API_PREFIX, createApiRoutes());
  return app;
}
