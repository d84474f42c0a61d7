export { OpenSearchEngine, type OpenSearchEngineOptions } from './engine.js';
export { BulkWriteError, type BulkItemFailure, OpenSearchError } from './errors.js';
