/**
 * The settings of a new physical index: shards, replicas, refresh interval (off while a version
 * is being bulk-loaded), the result window and terms limit, and the custom analyzers its mapping
 * refers to.
 */
import type { Types } from '@opensearch-project/opensearch';
import type { IndexMapping } from '../mapping.js';
import { asRecord, str } from './errors.js';

export interface IndexSettingsOptions {
  shards: number;
  /** Replicas of live indices: a count, or an `auto_expand_replicas` range such as `0-1`. */
  replicas: number | string;
  refreshInterval: string;
  maxResultWindow: number;
  maxTermsCount: number;
  /** Custom analyzers by name; only those the mapping uses are added. */
  analyzers: Record<string, Record<string, unknown>>;
}

/** Names of the analyzers a mapping refers to (`analyzer`, `search_analyzer`), sub-fields included. */
function analyzersUsed(properties: Record<string, unknown>, into = new Set<string>()): Set<string> {
  for (const field of Object.values(properties)) {
    const f = asRecord(field);
    if (!f) continue;
    for (const key of ['analyzer', 'search_analyzer', 'search_quote_analyzer']) {
      const name = str(f[key]);
      if (name !== undefined) into.add(name);
    }
    const nested = asRecord(f.properties);
    if (nested) analyzersUsed(nested, into);
    const fields = asRecord(f.fields);
    if (fields) analyzersUsed(fields, into);
  }
  return into;
}

/** Settings of an index with this mapping; `loading` for a version about to be bulk-loaded. */
export function indexSettings(
  mapping: IndexMapping,
  loading: boolean,
  options: IndexSettingsOptions,
): Types.Indices_Common.IndexSettings {
  const used = analyzersUsed(mapping.properties as Record<string, unknown>);
  const analyzer: Record<string, Record<string, unknown>> = {};
  for (const name of used) {
    const def = options.analyzers[name];
    if (def) analyzer[name] = def;
  }
  const index: Types.Indices_Common.IndexSettings = {
    number_of_shards: options.shards,
    ...(loading ? { number_of_replicas: 0 } : replicaSettings(options.replicas)),
    refresh_interval: loading ? '-1' : options.refreshInterval,
    max_result_window: options.maxResultWindow,
    max_terms_count: options.maxTermsCount,
  };
  if (Object.keys(analyzer).length > 0) {
    index.analysis = { analyzer } as Types.Indices_Common.IndexSettingsAnalysis;
  }
  return { index };
}

/**
 * The replica settings of a live index: a fixed count, or a range that OpenSearch follows as data
 * nodes join and leave (`0-1`: none on one node, one from two nodes on).
 */
export function replicaSettings(replicas: number | string): Types.Indices_Common.IndexSettings {
  return typeof replicas === 'number' ? { number_of_replicas: replicas } : { auto_expand_replicas: replicas };
}
