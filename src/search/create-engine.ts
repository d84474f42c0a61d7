/**
 * Picks the search engine from the configuration: OpenSearch when `OPENSEARCH_URL` names one node
 * or several (with the replicas and shards of `OPENSEARCH_REPLICAS` and `OPENSEARCH_SHARDS`), else
 * the embedded engine, on a thread of its own, with its snapshots under `DATA_DIR` (loaded in the
 * background; every engine call waits for the load and reports a failed one). Callers code
 * against `SearchEngine` and never learn which one they got.
 */
import type { Config } from '../config.js';
import { EngineThread } from './embedded/public.js';
import type { SearchEngine } from './engine.js';
import { OpenSearchEngine } from './opensearch/index.js';

export type SearchEngineConfig = Pick<
  Config,
  'dataDir' | 'opensearchNodes' | 'opensearchIndexPrefix' | 'opensearchReplicas' | 'opensearchShards'
>;

export function createSearchEngine(config: SearchEngineConfig): SearchEngine {
  if (config.opensearchNodes.length > 0) {
    return new OpenSearchEngine({
      node: config.opensearchNodes,
      indexPrefix: config.opensearchIndexPrefix,
      numberOfReplicas: config.opensearchReplicas,
      numberOfShards: config.opensearchShards,
    });
  }
  return new EngineThread({ dataDir: config.dataDir });
}
