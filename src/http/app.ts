/**
 * The HTTP application: the read API under `/api/v1/json`, the stored files (embedded CDN),
 * `/healthz`, `/readyz` and `/metrics`. The shared middleware is two layers: the request frame
 * around every request (request id and log, metrics, dependencies, CORS preflight, cache headers,
 * which wrap every answer, errors included, and the request limits of the files), and under
 * `/api/v1/json` the caller (key auth, request limits and the current filter).
 */
import { Hono } from 'hono';
import { limitPolicyFrom, RequestLimiter } from '../limits/index.js';
import type { AppDeps, AppEnv } from './context.js';
import { errorHandler, notFoundHandler } from './middleware/errors.js';
import { caller } from './middleware/caller.js';
import { requestLimits, type LimitCheck, type LimitsOptions } from './middleware/limits.js';
import { requestFrame } from './middleware/request-frame.js';
import { commentRoutes } from './routes/comments.js';
import { dumpRoutes } from './routes/dumps.js';
import { fileRoutes } from './routes/files.js';
import { storageOf } from './media-storage.js';
import { filterRoutes } from './routes/filters.js';
import { forumRoutes } from './routes/forums.js';
import { healthRoutes } from './routes/health.js';
import { imageRoutes } from './routes/images.js';
import { createAppMetrics, metricsRoutes } from './routes/metrics.js';
import { oembedRoutes } from './routes/oembed.js';
import { openapiRoutes } from './routes/openapi.js';
import { postRoutes } from './routes/posts.js';
import { profileRoutes } from './routes/profiles.js';
import { API_PREFIX } from './api-prefix.js';
import { createReadCaches } from '../caches/read-caches.js';
import { processCaches } from '../caches/registry.js';
import { LiveService } from './live/service.js';
import { reverseRoutes } from './routes/reverse.js';
import { searchRoutes } from './routes/search.js';
import { searchPageRoutes } from './routes/search-page.js';
import { liveSearchRoutes } from './routes/live-search.js';
import { changeRoutes } from './routes/changes.js';
import { socketRoutes } from './routes/socket.js';
import { tagRoutes } from './routes/tags.js';
import { uploadRoutes } from './routes/upload.js';
import { workbenchRoutes } from './routes/workbench.js';
import { autocompleteRoute } from './routes/autocomplete.js';

export type { AppDeps, AppEnv } from './context.js';

/** The `/api/v1/json` routes, behind key auth, request limits and the current filter. */
export function createApiRoutes(limits?: LimitCheck): Hono<AppEnv> {
  const api = new Hono<AppEnv>();
  api.use('*', caller(limits));
  api.route('/', imageRoutes());
  api.route('/', commentRoutes());
  api.route('/', postRoutes());
  api.route('/', profileRoutes());
  api.route('/', tagRoutes());
  api.route('/', workbenchRoutes());
  api.route('/', autocompleteRoute());
  api.route('/', filterRoutes());
  api.route('/', forumRoutes());
  api.route('/', oembedRoutes());
  api.route('/', uploadRoutes());
  api.route('/', reverseRoutes());
  api.route('/', liveSearchRoutes());
  api.route('/', searchRoutes());
  api.route('/', changeRoutes());
  return api;
}

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const metrics = deps.metrics ?? createAppMetrics(deps.db, deps.indexerLag, storageOf(deps).health);
  const caches = deps.caches ?? createReadCaches(deps.db, { images: { maxBytes: deps.config.imageCacheBytes } });
  metrics.caches.watch(processCaches);
  metrics.caches.watch(caches.registry);
  const appDeps: AppDeps = { ...deps, metrics, caches };
  appDeps.live ??= new LiveService(appDeps);
  const limiter = deps.config.limits.enabled ? new RequestLimiter(deps.db, limitPolicyFrom(deps.config.limits), caches.bans) : null;
  const limits: Omit<LimitsOptions, 'scope'> = { limiter, bans: limiter ? undefined : caches.bans, trustProxy: deps.config.trustProxy, metrics };
  const app = new Hono<AppEnv>();
  app.onError(errorHandler(deps.logger));
  app.notFound(notFoundHandler);
  app.use('*', requestFrame({ deps: appDeps, metrics, feed: caches.feed, fileLimits: requestLimits({ ...limits, scope: 'files' }) }));
  app.route('/', healthRoutes());
  app.route('/', metricsRoutes(metrics));
  app.route('/', fileRoutes(storageOf(deps)));
  app.route('/', dumpRoutes(deps.config, storageOf(deps).area('dumps')));
  app.route('/', openapiRoutes());
  app.route('/', searchPageRoutes());
  app.use('/socket/*', caller());
  app.route('/', socketRoutes());
  app.route(API_PREFIX, createApiRoutes(requestLimits({ ...limits, scope: 'api' })));
  return app;
}
