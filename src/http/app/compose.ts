/**
 * The composition root of the app: every shared object the routes and middleware use is built
 * here, once per app, and handed to `createApp` on the deps object. The service (`src/main.ts`)
 * composes one app; a test composes its own, giving the parts it wants to share or watch.
 *
 * Why one place: built in several (a route making its own limiter, a side table per deps object,
 * the service preloading an index the routes never read), two copies of one thing drift apart —
 * a ban one limiter issued was unknown to the other's ban cache for seconds, and the autocomplete
 * index loaded at start was not the one the first keystroke asked.
 */
import { LiveTagIndex } from '../../contexts/tags/autocomplete-index.js';
import { ClientGate, limitPolicyFrom, parseRate, RequestLimiter } from '../../limits/index.js';
import { openStorage } from '../../media/storage-open.js';
import { LiveService } from '../live/service.js';
import { createReadCaches } from '../../caches/read-caches.js';
import { processCaches } from '../../lib/cache-registry.js';
import { createAppMetrics } from '../routes/metrics.js';
import { APP_TARPIT, Tarpit } from '../server/tarpit.js';
import type { AppDeps, AppParts } from '../env/context.js';

export function composeApp(parts: AppParts): AppDeps {
  const { config, db, backgroundDb = db } = parts;
  const storage = parts.storage ?? openStorage(config.storage);
  const metrics = parts.metrics ?? createAppMetrics(db, parts.indexerLag, storage.health);
  const caches = parts.caches ?? createReadCaches(db, { images: { maxBytes: config.imageCacheBytes } });
  metrics.caches.watch(processCaches);
  metrics.caches.watch(caches.registry);
  if (parts.engine.caches) metrics.caches.watch(parts.engine.caches);
  // Every route's limits, submissions' included, and the limiter's bans go through the one ban cache.
  const limiter = config.limits.enabled ? new RequestLimiter(db, limitPolicyFrom(config.limits), caches.bans) : null;
  const { concurrency, rate } = config.limits.reverseSearch;
  const deps: Omit<AppDeps, 'live'> = {
    config,
    db,
    engine: parts.engine,
    ...(parts.logger ? { logger: parts.logger } : {}),
    ...(parts.readiness ? { readiness: parts.readiness } : {}),
    ...(parts.shutdownSignal ? { shutdownSignal: parts.shutdownSignal } : {}),
    ...(parts.indexerLag ? { indexerLag: parts.indexerLag } : {}),
    metrics,
    caches,
    storage,
    limiter,
    tarpit: new Tarpit({ ...APP_TARPIT, signal: parts.shutdownSignal }),
    reverseGate: new ClientGate(db, { name: 'reverse-search', concurrency, rate: parseRate(rate) }),
    // Loaded through the background pool: a whole load can outlast a request's statement timeout.
    autocomplete: new LiveTagIndex(backgroundDb, () => metrics.autocompleteIndexLoads.inc()),
    upload: parts.upload ?? {},
  };
  // The change log is followed through the background pool too; its renders share the caches.
  const live = parts.live ?? new LiveService({ ...deps, db: backgroundDb });
  return { ...deps, live };
}
