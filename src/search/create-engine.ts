/**
 * Picks the search engine from the configuration: OpenSearch when `OPENSEARCH_URL` is set, else
 * the embedded engine, on a thread of its own, with its snapshots under `DATA_DIR` (loaded in the
 * background; every engine call waits for the load and reports a failed one). Callers code
 * against `SearchEngine` and never learn which one they got.
 */
import type { Config } from '../config.js';
import { EngineThread } from './embedded/index.js';
import type { SearchEngine } from './engine.js';
import { OpenSearchEngine } from './opensearch/index.js';

export type SearchEngineConfig = Pick<Config, 'dataDir' | 'opensearchUrl' | 'opensearchIndexPrefix'>;

export function createSearchEngine(config: SearchEngineConfig): SearchEngine {
  if (config.opensearchUrl) {
    return new OpenSearchEngine({ node: config.opensearchUrl, indexPrefix: config.opensearchIndexPrefix });
  }
  return new EngineThread({ dataDir: config.dataDir });
}
