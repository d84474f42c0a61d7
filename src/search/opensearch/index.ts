export {
  BulkWriteError,
  OpenSearchEngine,
  OpenSearchError,
  type BulkItemFailure,
  type OpenSearchEngineOptions,
} from './engine.js';
