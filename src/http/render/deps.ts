/**
 * What rendering reads: the settings, a pool, and the app's caches of rendered records when it
 * has them. Declared here rather than beside `AppDeps` (src/http/env/context.ts), which satisfies
 * it, so that the renderers depend on nothing of the app's composition.
 */
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import type { ReadCaches } from '../../caches/read-caches.js';

export interface RenderDeps {
  config: Config;
  db: Database;
  caches?: ReadCaches | undefined;
}
